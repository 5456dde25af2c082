import BurgerMapCore
import Hummingbird

/// Sets `AppRequestContext.clientAddress` from the socket peer and, when the peer is a trusted
/// proxy, from its forwarding headers (`TrustedProxies.client`). It runs first, so throttling,
/// the access log and every other log line see the same address.
struct ClientAddressMiddleware: RouterMiddleware {
    let trustedProxies: TrustedProxies

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if !trustedProxies.networks.isEmpty {
            context.clientAddress = trustedProxies.client(peer: context.clientAddress, headers: request.headers)
        }
        return try await next(request, context)
    }
}
