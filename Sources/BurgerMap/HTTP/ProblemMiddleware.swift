import BurgerMapCore
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Turns every error a handler throws into a problem document, and stamps each response with
/// the request id that the logs carry, so a client's report can be matched to a log line.
///
/// Errors that are not the client's fault are logged with their details and answered as
/// `500 internal` with no internals in the body.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Tells errors that mean "the database is away" (answered `503`) from the service's own.
    var isOutage: @Sendable (any Error) -> Bool = { _ in false }
    /// Tells the faults of the machine (a full disk, a read-only file: `503 storage_full` or
    /// `storage_read_only`), recorded for `/health`.
    var storageFault: @Sendable (any Error) -> StorageFault? = { _ in nil }
    var faults: StorageFaults? = nil

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            if let codings = request.headers[.transferEncoding], !Self.isChunkedOnly(codings) {
                // RFC 9112 §6.1: a transfer coding the server does not understand is 501. The body
                // cannot be framed, so the answer closes the connection (ConnectionGuard).
                throw Problem(
                    .notImplemented, .transferCodingUnsupported, ["coding": String(codings.prefix(40))],
                    headers: [.connection: "close"])
            }
            response = try await next(request, context)
        } catch {
            let problem: Problem
            if let fault = storageFault(error) {
                context.logger.error(
                    "storage fault", metadata: ["fault": "\(fault)", "error": "\(String(reflecting: error))"])
                faults?.record(fault)
                problem = fault.problem
            } else if isOutage(error) {
                problem = Self.outage(error, context: context)
            } else {
                problem = Self.problem(for: error, context: context)
            }
            response = try problem.response(from: request, context: context)
        }
        response.headers[AccessLogMiddleware.requestIDHeader] = context.id
        return response
    }

    /// Whether a `Transfer-Encoding` header names only `chunked`, the one coding the server reads.
    static func isChunkedOnly(_ codings: String) -> Bool {
        codings.split(separator: ",").allSatisfy {
            $0.trimmingCharacters(in: .whitespaces).lowercased() == "chunked"
        }
    }

    /// The answer while the database is away: `503`, retry in a few seconds.
    static func outage(_ error: any Error, context: Context) -> Problem {
        context.logger.warning("database unavailable", metadata: ["error": "\(String(reflecting: error))"])
        return Problem(.serviceUnavailable, .databaseUnavailable, headers: [.retryAfter: "5"])
    }

    static func problem(for error: any Error, context: Context) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as HTTPError:
            switch error.status {
            case .notFound: return Problem(.notFound, .noSuchRoute)
            case .contentTooLarge: return Problem(.payloadTooLarge, .bodyTooLarge)
            case .methodNotAllowed: return Problem(.methodNotAllowed, .methodNotAllowed)
            case .unsupportedMediaType:
                return Problem(.unsupportedMediaType, .mediaTypeNotSupported, ["expected": "application/json"])
            case .badRequest: return Problem(.validationFailed, .requestMalformed)
            default:
                if error.status.code < 500 {
                    return Problem(.validationFailed, .requestNotServed, ["status": "\(error.status.code)"])
                }
            }
        case is HTTPParserError:
            // Broken framing (a bad chunk size, an unknown transfer coding): the client's fault,
            // and the rest of the connection cannot be read, so the answer closes it.
            return Problem(.validationFailed, .requestFramingInvalid, headers: [.connection: "close"])
        case is NIOTooManyBytesError:
            return Problem(.payloadTooLarge, .bodyTooLarge)
        case is DecodingError:
            return Problem(.invalidJSON, .invalidJSON)
        default:
            break
        }
        context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
        return Problem(.internal, .internalError)
    }
}
