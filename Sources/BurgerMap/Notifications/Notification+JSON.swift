import BurgerMapCore
import Foundation

/// A notification list item: `{id, type, group_key, count, latest_at, actors, review, comment,
/// read}`, and `decision` on moderation items.
struct NotificationView: JSONWritable {
    var group: NotificationGroup

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("id")
            writer.value(group.latestEventID)
            writer.key("type")
            writer.value(group.type.rawValue)
            writer.key("group_key")
            writer.value(group.groupKey)
            writer.key("count")
            writer.value(group.count)
            writer.key("latest_at")
            writer.value(group.latestAt)
            writer.key("actors")
            writer.array { writer in
                for actor in group.actors { UserSummaryView(user: actor).write(to: &writer) }
            }
            writer.key("review")
            if let review = group.review {
                writer.object { writer in
                    writer.key("id")
                    writer.value(review.id)
                    writer.key("place_id")
                    writer.value(review.placeID)
                    writer.key("excerpt")
                    writer.value(review.excerpt)
                }
            } else {
                writer.value(nil as String?)
            }
            writer.key("comment")
            if let comment = group.comment {
                writer.object { writer in
                    writer.key("id")
                    writer.value(comment.id)
                    writer.key("excerpt")
                    writer.value(comment.excerpt)
                }
            } else {
                writer.value(nil as String?)
            }
            writer.key("read")
            writer.value(group.read)
            if group.type == .moderation {
                writer.key("decision")
                writer.value(group.decision)
            }
        }
    }

    /// The item as compact JSON text (a stream's `data:` line, a push's source).
    var json: String {
        var writer = JSONWriter(capacity: 512)
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// `{"list": {"like": true, …}, "push": {…}}`: every type, on or off.
struct NotificationSettingsView: JSONWritable {
    var settings: NotificationSettings

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("list")
            write(settings.listMask, to: &writer)
            writer.key("push")
            write(settings.pushMask, to: &writer)
        }
    }

    private func write(_ mask: Int, to writer: inout JSONWriter) {
        writer.object { writer in
            for type in NotificationType.allCases {
                writer.key(Self.key(type))
                writer.value(mask & type.bit != 0)
            }
        }
    }

    /// The type's name as a key (`JSONWriter` writes keys from static text).
    static func key(_ type: NotificationType) -> StaticString {
        switch type {
        case .like: "like"
        case .comment: "comment"
        case .follow: "follow"
        case .reviewByFollowed: "review_by_followed"
        case .moderation: "moderation"
        }
    }
}
