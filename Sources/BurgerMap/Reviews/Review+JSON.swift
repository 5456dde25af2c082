import BurgerMapCore

extension Review: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("id")
            writer.value(id)
            writer.key("place")
            writer.object { writer in
                writer.key("id")
                writer.value(place.id)
                writer.key("name")
                writer.value(place.name)
                writer.key("lat")
                writer.value(place.lat)
                writer.key("lng")
                writer.value(place.lng)
            }
            writer.key("author")
            UserSummaryView(user: author).write(to: &writer)
            writer.key("rating")
            writer.value(rating)
            writer.key("title")
            writer.value(title)
            writer.key("text")
            writer.value(text)
            writer.key("photos")
            writer.array { writer in
                for photo in photos { photo.write(to: &writer) }
            }
            writer.key("like_count")
            writer.value(likeCount)
            writer.key("bookmark_count")
            writer.value(bookmarkCount)
            writer.key("comment_count")
            writer.value(commentCount)
            writer.key("liked_by_me")
            writer.value(likedByMe)
            writer.key("bookmarked_by_me")
            writer.value(bookmarkedByMe)
            writer.key("created_at")
            writer.value(createdAt)
            writer.key("updated_at")
            writer.value(updatedAt)
        }
    }
}
