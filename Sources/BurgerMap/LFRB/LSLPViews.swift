import BurgerMapCore

/// The app's JSON shapes (`PostResponse`, `CommentResponse`, `Creator`…), written with every key
/// the app decodes as required: a missing one fails the whole screen. Ids are strings, times are
/// `yyyy-MM-dd'T'HH:mm:ss.SSSZ` (RFC 3339 with milliseconds, as the native API writes them).
enum LSLPViews {
    /// The creator of places: they belong to the map, not to whoever added them first.
    static let mapCreator = (id: "0", nick: "BurgerMap")

    /// `Creator`: `{user_id, nick, profileImage?}`.
    static func creator(_ writer: inout JSONWriter, id: String, nick: String, avatarURL: String? = nil) {
        writer.object { writer in
            writer.key("user_id")
            writer.value(id)
            writer.key("nick")
            writer.value(nick)
            if let avatarURL {
                writer.key("profileImage")
                writer.value(filePath(ofURL: avatarURL))
            }
        }
    }

    static func creator(_ writer: inout JSONWriter, _ user: User) {
        creator(&writer, id: String(user.id), nick: user.nickname, avatarURL: user.avatarUrl)
    }

    /// The app's path of a native photo URL (`/v1/photos/5.jpg` → `photos/5.jpg`).
    static func filePath(ofURL url: String) -> String {
        url.hasPrefix("/v1/") ? String(url.dropFirst(4)) : url
    }

    static func strings(_ writer: inout JSONWriter, _ key: StaticString, _ values: [String]) {
        writer.key(key)
        writer.array { writer in
            for value in values { writer.value(value) }
        }
    }

    /// The keys every post has and the app never fills (`buyers`, `hashTags`) or that only
    /// reviews fill.
    private static func emptyLists(_ writer: inout JSONWriter, _ keys: [StaticString]) {
        for key in keys {
            writer.key(key)
            writer.array { _ in }
        }
    }

    /// A restaurant post: the place, and its reviews as the comments that link them.
    static func restaurant(_ writer: inout JSONWriter, _ place: Place, links: [ReviewLink], product: String) {
        writer.object { writer in
            writer.key("post_id")
            writer.value(PostID.place(place.id).text)
            writer.key("product_id")
            writer.value(product)
            let name = place.shownName
            writer.key("title")
            writer.value(name)
            writer.key("content")
            writer.value("#" + name)
            writer.key("content1")
            writer.value(String(place.lng))
            writer.key("content2")
            writer.value(String(place.lat))
            writer.key("content3")
            writer.value(place.address ?? "")
            writer.key("content4")
            writer.value(place.phone ?? "")
            writer.key("content5")
            writer.value(place.externalId ?? "")
            writer.key("createdAt")
            writer.value(place.createdAt)
            writer.key("creator")
            creator(&writer, id: mapCreator.id, nick: mapCreator.nick)
            emptyLists(&writer, ["files", "likes", "likes2", "buyers", "hashTags"])
            writer.key("comments")
            writer.array { writer in
                for link in links {
                    writer.object { writer in
                        let id = PostID.review(link.reviewID).text
                        writer.key("comment_id")
                        writer.value(id)
                        writer.key("content")
                        writer.value(id)
                        writer.key("createdAt")
                        writer.value(link.createdAt)
                        writer.key("creator")
                        creator(&writer, id: String(link.authorID), nick: link.authorNickname)
                    }
                }
            }
        }
    }

    /// What a review post embeds beside the review.
    struct ReviewExtras {
        var likes: [Int64] = []
        var bookmarks: [Int64] = []
        var comments: [Comment] = []
    }

    /// A review post.
    static func review(_ writer: inout JSONWriter, _ review: Review, extras: ReviewExtras, product: String) {
        writer.object { writer in
            writer.key("post_id")
            writer.value(PostID.review(review.id).text)
            writer.key("product_id")
            writer.value(product)
            writer.key("title")
            writer.value(review.title ?? "")
            writer.key("price")
            writer.value(review.rating)
            writer.key("content")
            writer.value(review.text)
            writer.key("content1")
            writer.value(PostID.place(review.place.id).text)
            writer.key("createdAt")
            writer.value(review.createdAt)
            writer.key("creator")
            creator(&writer, review.author)
            strings(&writer, "files", review.photos.map { LSLPFilePath.path(photoID: $0.id) })
            strings(&writer, "likes", extras.likes.map { String($0) })
            strings(&writer, "likes2", extras.bookmarks.map { String($0) })
            emptyLists(&writer, ["buyers", "hashTags"])
            writer.key("comments")
            writer.array { writer in
                for comment in extras.comments { self.comment(&writer, comment) }
            }
        }
    }

    /// `CommentResponse` of a comment on a review.
    static func comment(_ writer: inout JSONWriter, _ comment: Comment) {
        writer.object { writer in
            writer.key("comment_id")
            writer.value(String(comment.id))
            writer.key("content")
            writer.value(comment.text)
            writer.key("createdAt")
            writer.value(comment.createdAt)
            writer.key("creator")
            creator(&writer, comment.author)
        }
    }

    /// `ProfileResponse`.
    static func profile(
        _ writer: inout JSONWriter, _ user: User, includesEmail: Bool, followers: [User], following: [User],
        posts: [Int64]
    ) {
        writer.object { writer in
            writer.key("user_id")
            writer.value(String(user.id))
            if includesEmail {
                writer.key("email")
                writer.value(user.email)
            }
            writer.key("nick")
            writer.value(user.nickname)
            if let avatar = user.avatarUrl {
                writer.key("profileImage")
                writer.value(filePath(ofURL: avatar))
            }
            writer.key("followers")
            writer.array { writer in
                for follower in followers { creator(&writer, follower) }
            }
            writer.key("following")
            writer.array { writer in
                for followee in following { creator(&writer, followee) }
            }
            strings(&writer, "posts", posts.map { PostID.review($0).text })
        }
    }
}
