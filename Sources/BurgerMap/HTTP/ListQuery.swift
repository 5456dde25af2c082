import BurgerMapCore
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
        limit = reader.int("limit", in: ListLimits.allowed, default: ListLimits.default)
        try reader.validate()
        after = try reader.text("cursor").map { try cursors.decode(TimeKey.self, from: $0, scope: scope) }
        self.scope = scope
    }
}

extension KeysetPage {
    /// Throws `missing` when the list's owner (a place, user or review) does not exist: such a
    /// list is `404`, not empty. Only an empty page asks `ownerExists`; a page with items proves
    /// the owner exists without another read.
    func requireOwner(missing: @autoclosure () -> Problem, ownerExists: () async throws -> Bool) async throws {
        if items.isEmpty, try await !ownerExists() { throw missing() }
    }
}

extension KeysetPage where Item: JSONWritable {
    /// The page as the contract's `{items, next_cursor}` with a `Link` header, its cursor signed
    /// for the list the request asked for.
    func response(for request: Request, query: ListQuery, cursors: CursorCodec) -> Response {
        Page(items: items, nextCursor: next.map { cursors.encode($0, scope: query.scope) }).response(for: request)
    }
}
