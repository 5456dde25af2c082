import Foundation

/// The title and body of a push for a notification group, in ko/en/ja: what a phone shows on
/// its lock screen. `{actor}` is the latest actor's nickname, `{others}` how many more there
/// are, `{excerpt}` the start of the comment or review.
public enum PushTexts {
    /// The texts of each type (one actor, several actors) and of each decision.
    package static let catalogue: [String: [Language: String]] = [
        "like.title": [.english: "New like", .korean: "새 좋아요", .japanese: "新しいいいね"],
        "like.one": [
            .english: "{actor} liked your review", .korean: "{actor}님이 리뷰를 좋아합니다",
            .japanese: "{actor}さんがレビューにいいねしました",
        ],
        "like.two": [
            .english: "{actor} and 1 other liked your review", .korean: "{actor}님 외 1명이 리뷰를 좋아합니다",
            .japanese: "{actor}さんほか1人がレビューにいいねしました",
        ],
        "like.many": [
            .english: "{actor} and {others} others liked your review",
            .korean: "{actor}님 외 {others}명이 리뷰를 좋아합니다",
            .japanese: "{actor}さんほか{others}人がレビューにいいねしました",
        ],
        "comment.title": [.english: "New comment", .korean: "새 댓글", .japanese: "新しいコメント"],
        "comment.one": [
            .english: "{actor} commented: {excerpt}", .korean: "{actor}님의 댓글: {excerpt}",
            .japanese: "{actor}さんのコメント: {excerpt}",
        ],
        "comment.two": [
            .english: "{actor} and 1 other commented: {excerpt}", .korean: "{actor}님 외 1명의 댓글: {excerpt}",
            .japanese: "{actor}さんほか1人のコメント: {excerpt}",
        ],
        "comment.many": [
            .english: "{actor} and {others} others commented: {excerpt}",
            .korean: "{actor}님 외 {others}명의 댓글: {excerpt}",
            .japanese: "{actor}さんほか{others}人のコメント: {excerpt}",
        ],
        "follow.title": [.english: "New follower", .korean: "새 팔로워", .japanese: "新しいフォロワー"],
        "follow.one": [
            .english: "{actor} followed you", .korean: "{actor}님이 회원님을 팔로우합니다",
            .japanese: "{actor}さんがあなたをフォローしました",
        ],
        "follow.two": [
            .english: "{actor} and 1 other followed you", .korean: "{actor}님 외 1명이 회원님을 팔로우합니다",
            .japanese: "{actor}さんほか1人があなたをフォローしました",
        ],
        "follow.many": [
            .english: "{actor} and {others} others followed you",
            .korean: "{actor}님 외 {others}명이 회원님을 팔로우합니다",
            .japanese: "{actor}さんほか{others}人があなたをフォローしました",
        ],
        "review_by_followed.title": [.english: "New review", .korean: "새 리뷰", .japanese: "新しいレビュー"],
        "review_by_followed.one": [
            .english: "{actor} posted a review: {excerpt}", .korean: "{actor}님의 새 리뷰: {excerpt}",
            .japanese: "{actor}さんの新しいレビュー: {excerpt}",
        ],
        "moderation.title": [.english: "Moderation", .korean: "운영 알림", .japanese: "運営からのお知らせ"],
        "moderation.hidden": [
            .english: "Your content was hidden by moderation.", .korean: "회원님의 콘텐츠가 운영 정책에 따라 숨겨졌습니다.",
            .japanese: "あなたのコンテンツは運営により非表示になりました。",
        ],
        "moderation.restored": [
            .english: "Your content was restored.", .korean: "회원님의 콘텐츠가 복원되었습니다.",
            .japanese: "あなたのコンテンツは復元されました。",
        ],
        "moderation.dismissed": [
            .english: "Your report was reviewed; no action was taken.", .korean: "신고를 검토했으며 조치하지 않았습니다.",
            .japanese: "通報を確認しましたが、対応は行われませんでした。",
        ],
        "moderation.report": [
            .english: "Your report was reviewed and acted on.", .korean: "신고를 검토하여 조치했습니다.",
            .japanese: "通報を確認し、対応しました。",
        ],
    ]

    /// `(title, body)` for `group` in `language`.
    public static func texts(for group: NotificationGroup, in language: Language) -> (title: String, body: String) {
        func text(_ key: String) -> String {
            catalogue[key]?[language] ?? catalogue[key]?[.english] ?? ""
        }
        let title = text("\(group.type.rawValue).title")
        let body: String
        switch group.type {
        case .moderation:
            let isReport = group.review == nil && group.comment == nil
            switch (group.decision, isReport) {
            // A report whose content stays (dismissed, or restored after all) changed nothing.
            case ("dismissed", _), ("restored", true): body = text("moderation.dismissed")
            case (_, true): body = text("moderation.report")
            case ("restored", _): body = text("moderation.restored")
            default: body = text("moderation.hidden")
            }
        case .reviewByFollowed:
            body = fill(text("review_by_followed.one"), group)
        default:
            let others = max(group.count - 1, 0)
            let form = others == 0 ? "one" : others == 1 ? "two" : "many"
            body = fill(text("\(group.type.rawValue).\(form)"), group)
        }
        return (title, body)
    }

    private static func fill(_ template: String, _ group: NotificationGroup) -> String {
        template.replacingOccurrences(of: "{actor}", with: group.actors.first?.nickname ?? "?")
            .replacingOccurrences(of: "{others}", with: "\(max(group.count - 1, 0))")
            .replacingOccurrences(of: "{excerpt}", with: group.comment?.excerpt ?? group.review?.excerpt ?? "")
    }
}
