import HTTPTypes
import Hummingbird

/// Headers every answer carries, whatever route made it (problems included): no guessing of
/// content types (`X-Content-Type-Options: nosniff`), and `Cache-Control: no-store` on the
/// answers that hold tokens or the signed-in user's own account (register, login, refresh, the
/// app's join and login, `/v1/users/me`), as RFC 6749 §5.1 asks of token answers, so that no
/// cache along the way keeps them.
struct ResponseHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var noSniffName: HTTPField.Name { HTTPField.Name("X-Content-Type-Options")! }

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
        var response = try await next(request, context)
        response.headers[Self.noSniffName] = "nosniff"
        if Self.isPrivate(request.uri.path) { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
