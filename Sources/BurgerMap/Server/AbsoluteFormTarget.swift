import NIOCore
import NIOHTTP1

/// A request whose target is in absolute form (`GET http://a.example/x HTTP/1.1`, as proxies
/// send it) names its host there, and that authority wins over `Host` (RFC 9112 §3.2.2): the
/// `Host` the rest of the pipeline reads is set to it. It sits before the conversion to
/// version-less HTTP types, which keeps only the target's path. Two `Host` fields are left as
/// they came, for the `400` that `ResponseHeadersMiddleware` answers.
final class AbsoluteFormTarget: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), let authority = Self.authority(of: head.uri),
            head.headers["host"].count <= 1
        else {
            return context.fireChannelRead(data)
        }
        head.headers.replaceOrAdd(name: "host", value: authority)
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The authority of an absolute-form target (`http://` or `https://`, any case), when it is
    /// a valid host[:port]; `nil` for an origin-form target (`/path`).
    static func authority(of target: String) -> String? {
        let lowered = target.prefix(8).lowercased()
        let start: String.Index
        if lowered.hasPrefix("http://") {
            start = target.index(target.startIndex, offsetBy: 7)
        } else if lowered.hasPrefix("https://") {
            start = target.index(target.startIndex, offsetBy: 8)
        } else {
            return nil
        }
        let authority = String(target[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        return RequestOrigin.isAuthority(authority) ? authority : nil
    }
}
