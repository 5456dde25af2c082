import BurgerMapCore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 channel with the service's connection limits around it: a
/// `ConnectionGuard` after the HTTP decoder, a `ByteCounter` in front of it, and the connection
/// cap checked before anything is read.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let registry: ConnectionRegistry

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard registry.admit(channel) else {
            return channel.close().flatMapThrowing { throw ChannelError.ioOnClosedChannel }
        }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let guardHandler = try pipeline.handler(type: ConnectionGuard.self)
            try pipeline.addHandler(ByteCounter(reportingTo: guardHandler), position: .first)
            let codec = try pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(ConnectionCloseRequest(), position: .before(codec.handler))
            try pipeline.addHandler(AbsoluteFormTarget(), position: .before(codec.handler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with the service's connection limits (see `ConnectionLimits`).
    public static func guardedHTTP1(_ limits: ConnectionLimits) -> HTTPServerBuilder {
        let registry = ConnectionRegistry(maximum: limits.maximumConnections, metrics: ConnectionMetrics())
        return HTTPServerBuilder { responder in
            let configuration = HTTP1Channel.Configuration(
                additionalChannelHandlers: [
                    ConnectionGuard(limits: limits, registry: registry), ExpectContinueHandler(),
                ])
            return GuardedHTTP1Channel(
                http1: HTTP1Channel(responder: responder, configuration: configuration), registry: registry)
        }
    }
}
