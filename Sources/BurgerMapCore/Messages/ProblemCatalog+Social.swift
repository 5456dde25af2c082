extension ProblemCatalog {
    /// The messages of comments and follows.
    package static let socialMessages: [MessageKey: [Language: String]] = [
        .commentNotFound: [
            .english: "No comment has id {id}.", .korean: "ID가 {id}인 댓글이 없습니다.", .japanese: "ID {id} のコメントはありません。",
        ],
        .notCommentAuthor: [
            .english: "Only the comment's author may change it.", .korean: "댓글 작성자만 수정할 수 있습니다.",
            .japanese: "コメントの投稿者だけが変更できます。",
        ],
        .notCommentOrReviewAuthor: [
            .english: "Only the comment's author or the review's author may delete it.",
            .korean: "댓글 작성자나 리뷰 작성자만 삭제할 수 있습니다.",
            .japanese: "コメントの投稿者またはレビューの投稿者だけが削除できます。",
        ],
        .cannotFollowYourself: [
            .english: "You cannot follow yourself.", .korean: "자기 자신을 팔로우할 수 없습니다.", .japanese: "自分自身はフォローできません。",
        ],
    ]
}
