import Foundation
import Hummingbird

/// The request context of every route: Hummingbird's core storage plus the service's JSON
/// conventions (snake_case keys, RFC 3339 timestamps).
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        coreContext = .init(source: source)
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
