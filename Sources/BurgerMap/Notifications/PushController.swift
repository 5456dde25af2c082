import BurgerMapCore
import Crypto
import Foundation
import Hummingbird

/// Web Push under `/v1/push`: the server's VAPID key and the caller's subscriptions.
struct PushController {
    let store: any PushStore
    let vapid: VAPIDKeys
    let policy: PushEndpointPolicy
    let authentication: AccessTokenMiddleware
    let languages: NotificationLanguages

    /// The routes, mounted at `/v1/push`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("vapid-public-key") { _, _ in KeyView(key: vapid.publicKeyBase64URL).response() }
        let signedIn = routes.signedIn(authentication)
        signedIn.get("subscriptions") { request, context in
            let subscriptions = try await store.pushSubscriptions(of: context.user.id)
            return Page(items: subscriptions.map(SubscriptionView.init), nextCursor: nil).response(for: request)
        }
        signedIn.post("subscriptions") { request, context in try await subscribe(request, context: context) }
        signedIn.get("subscriptions/:id") { _, context in
            let id = try context.parameters.resourceID(.pushSubscriptionNotFound)
            guard
                let subscription = try await store.pushSubscriptions(of: context.user.id).first(where: { $0.id == id })
            else { throw Problem.notFound(.pushSubscriptionNotFound, id: id) }
            return SubscriptionView(subscription: subscription).response()
        }
        signedIn.delete("subscriptions/:id") { _, context in
            let id = try context.parameters.resourceID(.pushSubscriptionNotFound)
            guard try await store.deletePushSubscription(id: id, of: context.user.id) else {
                throw Problem.notFound(.pushSubscriptionNotFound, id: id)
            }
            return Response(status: .noContent)
        }
        return routes
    }

    /// `POST /v1/push/subscriptions` with the browser's `{endpoint, keys: {p256dh, auth}}`:
    /// `201 {id, endpoint, created_at}` (`200` when the endpoint was known: its keys are
    /// updated). The endpoint must be a known push service's (`PushEndpointPolicy`); the
    /// request's `Accept-Language` becomes the language of the user's pushes.
    func subscribe(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        struct Keys: Decodable {
            var p256dh: String
            var auth: String
        }
        struct Body: Decodable {
            var endpoint: String
            var keys: Keys
        }
        let body = try await request.decodeJSON(as: Body.self, limit: 8 * 1024)
        switch policy.check(body.endpoint) {
        case .success: break
        case .failure(.hostNotAllowed(let host)):
            throw Problem.invalid(
                "endpoint", "host_not_allowed", .pushEndpointHostNotAllowed, ["host": String(host.prefix(100))])
        case .failure:
            throw Problem.invalid("endpoint", "invalid", .pushEndpointInvalid)
        }
        guard let point = Base64URL.decode(body.keys.p256dh), point.count == 65,
            (try? P256.KeyAgreement.PublicKey(x963Representation: point)) != nil,
            let secret = Base64URL.decode(body.keys.auth), secret.count == 16
        else { throw Problem.invalid("keys", "invalid", .pushKeysInvalid) }
        try await languages.remember(request, user: context.user.id)
        let (subscription, created) = try await store.savePushSubscription(
            user: context.user.id, endpoint: body.endpoint, p256dh: Base64URL.encode(point),
            auth: Base64URL.encode(secret), at: .now(), limit: PushLimits.subscriptionsPerUser)
        guard created else { return SubscriptionView(subscription: subscription).response() }
        return SubscriptionView(subscription: subscription).response(
            status: .created, headers: [.location: "/v1/push/subscriptions/\(subscription.id)"])
    }
}

/// `{"key": "…"}`: the server's VAPID public key, base64url of the uncompressed P-256 point
/// (a browser's `applicationServerKey`).
struct KeyView: JSONWritable {
    var key: String
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("key")
            writer.value(key)
        }
    }
}

/// `{"id", "endpoint", "created_at"}`.
struct SubscriptionView: JSONWritable {
    var subscription: PushSubscription
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("id")
            writer.value(subscription.id)
            writer.key("endpoint")
            writer.value(subscription.endpoint)
            writer.key("created_at")
            writer.value(subscription.createdAt)
        }
    }
}
