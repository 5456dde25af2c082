extension ProblemCatalog {
    /// The messages of the LookForRealBurger routes.
    package static let lfrbMessages: [MessageKey: [Language: String]] = [
        .lslpKeyInvalid: [
            .english: "The SesacKey header is missing or wrong.", .korean: "SesacKey 헤더가 없거나 올바르지 않습니다.",
            .japanese: "SesacKey ヘッダーがないか、正しくありません。",
        ],
        .postNotFound: [
            .english: "No post has id {id}.", .korean: "ID가 {id}인 게시글이 없습니다.", .japanese: "ID {id} の投稿はありません。",
        ],
        .productUnknown: [
            .english: "product_id {id} names neither restaurants nor reviews.",
            .korean: "product_id {id}는 식당도 리뷰도 아닙니다.", .japanese: "product_id {id} は店舗でもレビューでもありません。",
        ],
        .restaurantRequired: [
            .english: "content1 must be the post_id of a restaurant.", .korean: "content1은 식당 게시글의 post_id여야 합니다.",
            .japanese: "content1 は店舗の投稿の post_id でなければなりません。",
        ],
        .filesUnavailable: [
            .english: "A file is not yours, is used already, or has expired: upload it again.",
            .korean: "본인 파일이 아니거나 이미 사용되었거나 만료된 파일이 있습니다. 다시 업로드해 주세요.",
            .japanese: "自分のものでない、使用済み、または期限切れのファイルがあります。もう一度アップロードしてください。",
        ],
        .filesRequired: [
            .english: "Send 1 to 5 images in parts named files.", .korean: "files 파트로 이미지를 1~5개 보내 주세요.",
            .japanese: "files パートで画像を 1〜5 枚送ってください。",
        ],
        .emailAvailable: [
            .english: "This email can be used.", .korean: "사용 가능한 이메일입니다.", .japanese: "このメールアドレスは使用できます。",
        ],
        .alreadyFollowing: [
            .english: "You follow this user already.", .korean: "이미 팔로우한 사용자입니다.", .japanese: "このユーザーはすでにフォローしています。",
        ],
        .postNotLikeable: [
            .english: "Only review posts can be liked or bookmarked.", .korean: "리뷰 게시글만 좋아요나 북마크를 할 수 있습니다.",
            .japanese: "いいねやブックマークができるのはレビューの投稿だけです。",
        ],
        .linkCommentInvalid: [
            .english: "A restaurant's comments are its reviews: the content must be the post_id of one of its reviews.",
            .korean: "식당의 댓글은 그 식당의 리뷰입니다. 내용은 그 식당 리뷰의 post_id여야 합니다.",
            .japanese: "店舗のコメントはその店舗のレビューです。内容はその店舗のレビューの post_id でなければなりません。",
        ],
    ]
}
