import ArgumentParser
import BurgerMap

/// `burgermap serve`'s options for notification streams and Web Push.
struct NotificationOptions: ParsableArguments {
    @Option(help: "Most open notification streams on this instance (beyond: 503).")
    var maxStreams = NotificationConfiguration().maxStreams
    @Option(
        help: ArgumentHelp(
            "Also send pushes to this push service host (HOST or HOST:PORT; repeatable).",
            discussion: "The known services (Google, Mozilla, Apple, Microsoft) are always allowed."))
    var pushEndpointHost: [String] = []
    @Flag(help: "Allow plain http for the --push-endpoint-host hosts (a local push service in tests).")
    var pushAllowHttp = false
    @Option(help: "The VAPID subject push services may contact: mailto:… or https://….")
    var vapidSubject = NotificationConfiguration().vapidSubject

    func validate() throws {
        guard maxStreams >= 0 else { throw ValidationError("--max-streams must not be negative") }
        guard vapidSubject.hasPrefix("mailto:") || vapidSubject.hasPrefix("https://") else {
            throw ValidationError("--vapid-subject must start with mailto: or https://")
        }
        for host in pushEndpointHost where PushEndpointPolicy.isValidExtraHost(host) == false {
            throw ValidationError("--push-endpoint-host '\(host)' is not HOST or HOST:PORT")
        }
    }

    /// The options applied to `configuration`.
    func apply(to configuration: inout NotificationConfiguration) {
        configuration.maxStreams = maxStreams
        configuration.pushEndpointHosts = pushEndpointHost
        configuration.pushAllowsHTTP = pushAllowHttp
        configuration.vapidSubject = vapidSubject
    }
}
