import BurgerMapCore

extension Comment: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("id")
            writer.value(id)
            writer.key("review_id")
            writer.value(reviewID)
            writer.key("author")
            UserSummaryView(user: author).write(to: &writer)
            writer.key("text")
            writer.value(text)
            writer.key("created_at")
            writer.value(createdAt)
            writer.key("updated_at")
            writer.value(updatedAt)
        }
    }
}
