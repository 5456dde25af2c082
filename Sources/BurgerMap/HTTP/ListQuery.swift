import Hummingbird

/// The paging parameters of a list request: `limit` (1…100, default 20) and `cursor`, which must
/// have been issued for the same list (`scope`: the route, its filters and, for personal lists,
/// the viewer).
struct ListQuery {
    var limit: Int
    var after: TimeKey?
    let scope: String

    init(_ request: Request, cursors: CursorCodec, scope: String) throws {
        var reader = QueryReader(request)
        limit = reader.int("limit", in: 1...100, default: 20)
        try reader.validate()
        after = try reader.text("cursor").map { try cursors.decode(TimeKey.self, from: $0, scope: scope) }
        self.scope = scope
    }
}

extension KeysetPage where Item: JSONWritable {
    /// The page as the contract's `{items, next_cursor}` with a `Link` header, its cursor signed
    /// for the list the request asked for.
    func response(for request: Request, query: ListQuery, cursors: CursorCodec) -> Response {
        Page(items: items, nextCursor: next.map { cursors.encode($0, scope: query.scope) }).response(for: request)
    }
}
