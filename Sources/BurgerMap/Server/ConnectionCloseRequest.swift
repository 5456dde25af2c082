import BurgerMapCore
import NIOCore
import NIOHTTP1

/// Writes a request's wish to close its connection in the one form the rest of the pipeline
/// reads, `Connection: close`: HTTP/1.0 closes after each answer unless the client sends
/// `Connection: keep-alive`, and `Close` or `close, TE` mean the same as `close` (RFC 9112
/// §9.3, §9.6). It sits before the conversion to version-less HTTP types, the last place that
/// knows the request's version. Without it an HTTP/1.0 client that waits for the end of the
/// answer held its connection until the idle timeout (30 s); Hummingbird ends a connection after
/// its answer only for exactly `Connection: close`.
final class ConnectionCloseRequest: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive,
            head.headers["connection"] != ["close"]
        else {
            return context.fireChannelRead(data)
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
