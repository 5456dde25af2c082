import HTTPTypes
import Hummingbird

/// One `Host` per request (RFC 9112 §3.2: two are `400`), and headers every answer carries,
/// whatever route made it (problems included): no guessing of
/// content types (`X-Content-Type-Options: nosniff`), and `Cache-Control: no-store` on the
/// answers that hold tokens or the signed-in user's own account (register, login, refresh, the
/// app's join and login, `/v1/users/me`), as RFC 6749 §5.1 asks of token answers, so that no
/// cache along the way keeps them.
struct ResponseHeadersMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// Made once: a name is checked and lowercased each time one is made (as `Link`'s).
    static let noSniffName = HTTPField.Name("X-Content-Type-Options")!

    /// The paths whose answers are never stored.
    static func isPrivate(_ path: String) -> Bool {
        switch path {
        case "/v1/auth/register", "/v1/auth/login", "/v1/auth/refresh", "/v1/users/me", "/v1/users/join",
            "/v1/users/login":
            true
        default: path.hasPrefix("/v1/users/me/")
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        // RFC 9112 §3.2: a request with more than one Host is 400. Over a socket, HTTP/1's first
        // Host arrives as the request's authority and any other as a field; a request made in
        // process (tests) has its Host as a field.
        // The field is read only when there is one (rare over a socket): no list per request.
        if request.headers[RequestOrigin.host] != nil {
            let overSocket = context.remoteAddress != nil && request.head.authority != nil
            if overSocket || request.headers[values: RequestOrigin.host].count > 1 {
                throw Problem(.validationFailed, .hostRepeated)
            }
        }
        var response = try await next(request, context)
        response.headers[Self.noSniffName] = "nosniff"
        if Self.isPrivate(request.uri.path) { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
