import BurgerMapCore
import Foundation
import Hummingbird
import HummingbirdAuth
import NIOCore

/// The request context of every route: Hummingbird's core storage, the service's JSON
/// conventions (snake_case keys, RFC 3339 timestamps), the client's address, and the viewer
/// when the request carried a valid access token (set by `AccessTokenMiddleware`).
public struct AppRequestContext: AuthRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The user whose access token came with the request, if any.
    public var identity: User?
    /// Whether that user is a moderator.
    public var identityIsModerator = false
    /// The socket peer's address (`nil` in in-process tests): the client, or a reverse proxy.
    public let remoteAddress: SocketAddress?
    /// The client's address: the socket peer, or what trusted proxies forwarded for it. Set for
    /// every request by `ClientAddressMiddleware`, the one place that reads forwarding headers;
    /// `nil` only when there is no socket (in-process tests).
    public internal(set) var clientAddress: IPAddress?
    /// The connection, so that the body reader can ask for `100 Continue` on it.
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
        clientAddress = remoteAddress.flatMap { IPAddress($0) }
    }

    public var responseEncoder: JSONEncoder { JSONCoding.encoder }
    public var requestDecoder: JSONDecoder { JSONCoding.decoder }

    /// The client's address as a throttling key (an IPv6 client's /64).
    var clientKey: String { clientAddress?.throttleKey ?? "unknown" }

    /// The client's address for logs.
    var clientText: String { clientAddress?.description ?? "-" }
}

/// The context of routes that need a signed-in user: it cannot be made without one, so a
/// handler cannot forget the check. Routes get it by grouping under
/// `routes.signedIn(authentication)` (`AccessTokenMiddleware` then this context).
public struct AuthenticatedContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in user.
    public let user: User
    /// Whether the user is a moderator (`ModeratorContext`).
    public let isModerator: Bool
    let clientKey: String
    let clientText: String

    public init(context: AppRequestContext) throws {
        guard let user = context.identity else {
            throw Problem(.unauthorized, .authenticationRequired, headers: [.wwwAuthenticate: "Bearer"])
        }
        // The parent's storage, not a fresh one: it holds the path parameters and the request logger.
        coreContext = context.coreContext
        self.user = user
        isModerator = context.identityIsModerator
        clientKey = context.clientKey
        clientText = context.clientText
    }

    public var responseEncoder: JSONEncoder { JSONCoding.encoder }
    public var requestDecoder: JSONDecoder { JSONCoding.decoder }
}

/// The shared JSON encoder and decoder of the API.
enum JSONCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()
}
