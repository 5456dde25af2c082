import BurgerMapCore
import Hummingbird

extension Router<AppRequestContext> {
    /// `/v1/notifications`, `/v1/me/notification-settings`, `/v1/streaming` and `/v1/push`.
    func addNotificationRoutes(
        _ dependencies: ServiceDependencies, cursors: CursorCodec, authentication: AccessTokenMiddleware
    ) {
        let services = dependencies.notifications
        let store = dependencies.stores.notifications
        let list = NotificationsController(
            store: store, cursors: cursors, authentication: authentication, languages: services.languages)
        addRoutes(list.endpoints, atPath: "/v1/notifications")
        addRoutes(list.settingsEndpoints, atPath: "/v1/me")
        addRoutes(
            StreamingController(
                streams: services.streams, store: store, tokens: dependencies.accounts.accessTokens,
                authentication: authentication
            ).endpoints, atPath: "/v1/streaming")
        addRoutes(
            PushController(
                store: dependencies.stores.push, vapid: services.vapid, policy: services.policy,
                authentication: authentication, languages: services.languages
            ).endpoints, atPath: "/v1/push")
    }
}
