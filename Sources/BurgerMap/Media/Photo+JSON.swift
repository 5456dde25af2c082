import BurgerMapCore

extension Photo: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("id")
            writer.value(id)
            writer.key("url")
            writer.value(servedURL)
            writer.key("thumbnail_url")
            writer.value(servedThumbnailURL)
            writer.key("width")
            writer.value(width)
            writer.key("height")
            writer.value(height)
        }
    }
}
