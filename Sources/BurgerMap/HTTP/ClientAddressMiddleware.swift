import BurgerMapCore
import Hummingbird

/// Sets `AppRequestContext.clientAddress`, when the socket peer is a trusted proxy, from its
/// forwarding headers (`TrustedProxies.client`). It runs first, so throttling, the access log and
/// every other log line see the same address. The router has it only when trusted proxies are
/// configured: without them the client is the socket peer, which the context holds from the
/// start.
struct ClientAddressMiddleware: RouterMiddleware {
    let trustedProxies: TrustedProxies

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.clientAddress = trustedProxies.client(peer: context.clientAddress, headers: request.headers)
        return try await next(request, context)
    }
}
