import BurgerMapCore
import Hummingbird

/// Answers `503 service_unavailable` (with `Retry-After`) at once while the database does not
/// answer its health checks, instead of letting requests wait for it: a PostgreSQL client waits
/// for a connection as long as the server is away, and a client of the API should hear that
/// it is away. `/health`, `/metrics` and `/openapi.yaml` are still served (health says 503 by
/// itself). Service resumes with the first successful check.
struct OutageMiddleware<Context: RequestContext>: RouterMiddleware {
    let health: any StoreHealth

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard !health.isAvailable, request.uri.path.hasPrefix("/v1/") else {
            return try await next(request, context)
        }
        throw Problem(.serviceUnavailable, .databaseUnavailable, headers: [.retryAfter: "5"])
    }
}
