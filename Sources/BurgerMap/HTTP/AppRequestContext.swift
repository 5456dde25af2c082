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
    /// The connected client's address (`nil` in in-process tests).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    public var responseEncoder: JSONEncoder { JSONCoding.encoder }
    public var requestDecoder: JSONDecoder { JSONCoding.decoder }

    /// The client's address as a throttling key.
    var clientKey: String { remoteAddress?.ipAddress ?? "unknown" }
}

/// The context of routes that need a signed-in user: it cannot be made without one, so a
/// handler cannot forget the check. Routes get it by grouping under
/// `routes.signedIn(authentication)` (`AccessTokenMiddleware` then this context).
public struct AuthenticatedContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in user.
    public let user: User
    let clientKey: String

    public init(context: AppRequestContext) throws {
        guard let user = context.identity else {
            throw Problem(.unauthorized, .authenticationRequired, headers: [.wwwAuthenticate: "Bearer"])
        }
        // The parent's storage, not a fresh one: it holds the path parameters and the request logger.
        coreContext = context.coreContext
        self.user = user
        clientKey = context.clientKey
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
