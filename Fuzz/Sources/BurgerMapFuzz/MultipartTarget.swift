import Foundation
import Hummingbird

@testable import BurgerMap
@testable import BurgerMapCore

/// `multipart/form-data` uploads through `MultipartFormReader`, fed by a real Hummingbird
/// `Request` whose body arrives in pieces.
///
/// Input: one byte that seeds the body's chunking (0: one piece), the Content-Type value, a
/// line feed, then the body.
///
/// Invariants: the body read whole and read in random pieces gives the same parts, or fails in
/// both cases; a tighter header limit never lets through a body the normal reader refuses; every
/// failure is one of the contract's problems; the parts respect every limit; and the parts,
/// written again as a fresh form, read back the same.
enum MultipartTarget {
    /// Small limits, so that short inputs reach every limit. The header limit is off here
    /// (see `tight`): whether a run of silent bytes trips it depends on how the body is cut.
    static let limits = UploadLimits(
        requestBytes: 6000, fileBytes: 700, files: 2, fieldBytes: 120, headerBytes: 1 << 30)
    static let tight = UploadLimits(requestBytes: 6000, fileBytes: 700, files: 2, fieldBytes: 120, headerBytes: 48)

    struct Part: Equatable {
        var isFile: Bool
        var name: String
        var filename: String?
        var bytes: [UInt8]
    }

    /// The parts delivered and, when the read failed, the problem's code and message key.
    struct Outcome {
        var parts: [Part] = []
        var failure: String?
    }

    static func run(_ data: UnsafeRawBufferPointer) {
        guard let seed = data.first else { return }
        let rest = Array(data.dropFirst())
        let newline = rest.firstIndex(of: 0x0A) ?? rest.count
        let contentType = String(decoding: rest[..<newline], as: UTF8.self)
        let body = newline < rest.count ? Array(rest[(newline + 1)...]) : []

        let whole = read(body, contentType: contentType, seed: 0, largest: 0, limits: limits, sendLength: true)
        let pieces = read(body, contentType: contentType, seed: seed, largest: Int(seed), limits: limits)
        require(
            (whole.failure == nil) == (pieces.failure == nil),
            "whole: \(whole.failure ?? "ok"), in pieces: \(pieces.failure ?? "ok")")
        if whole.failure == nil {
            require(whole.parts == pieces.parts, "the parts depend on how the body is cut")
            checkLimits(whole.parts, bodyCount: body.count)
            checkRoundTrip(whole.parts)
        }
        let strict = read(body, contentType: contentType, seed: seed, largest: Int(seed), limits: tight)
        if strict.failure == nil {
            require(whole.failure == nil && strict.parts == whole.parts, "a tighter header limit let more through")
        }
    }

    static func read(
        _ body: [UInt8], contentType: String, seed: UInt8, largest: Int, limits: UploadLimits, sendLength: Bool = false
    ) -> Outcome {
        var head = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/v1/places/1/reviews")
        head.headerFields[.contentType] = contentType
        if sendLength { head.headerFields[.contentLength] = String(body.count) }
        let buffers = BufferSequence(buffers: chunks(body, seed: seed, largest: largest).map { ByteBuffer(bytes: $0) })
        let request = Request(head: head, body: RequestBody(asyncSequence: buffers))
        return runBlocking {
            var outcome = Outcome()
            do {
                try await MultipartFormReader(limits: limits, fileFields: ["photo"]).read(request) { part in
                    switch part {
                    case .field(let name, let value):
                        outcome.parts.append(Part(isFile: false, name: name, filename: nil, bytes: value))
                    case .file(let name, let filename, let bytes):
                        outcome.parts.append(Part(isFile: true, name: name, filename: filename, bytes: bytes))
                    }
                }
            } catch let problem as Problem {
                require(
                    [.validationFailed, .payloadTooLarge, .unsupportedMediaType].contains(problem.code),
                    "unexpected problem \(problem.code)")
                outcome.failure = "\(problem.code.rawValue)/\(problem.message.key.rawValue)"
            } catch {
                require(false, "not a problem document: \(error)")
            }
            return outcome
        }
    }

    static func checkLimits(_ parts: [Part], bodyCount: Int) {
        require(parts.filter(\.isFile).count <= limits.files, "more files than allowed")
        for part in parts {
            require(!part.name.isEmpty, "a part without a name")
            require(part.isFile == (part.name == "photo"), "file parts are the photo fields")
            require(part.bytes.count <= (part.isFile ? limits.fileBytes : limits.fieldBytes), "part over its limit")
        }
        require(parts.reduce(0) { $0 + $1.bytes.count } <= bodyCount, "more bytes out than in")
    }

    /// Writes the parts as a new form, as a browser would, and reads it back.
    static func checkRoundTrip(_ parts: [Part]) {
        let boundary = "fuzz-7d1c3b95e0a84f62"
        let delimiter = Array("\r\n--\(boundary)".utf8)
        guard !parts.contains(where: { contains($0.bytes, delimiter) || contains($0.bytes, Array(boundary.utf8)) })
        else { return }
        var body: [UInt8] = []
        for part in parts {
            var disposition = "form-data; name=\"\(quoted(part.name))\""
            if let filename = part.filename {
                let encoded = filename.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                disposition += "; filename*=UTF-8''\(encoded)"
            }
            body += Array("--\(boundary)\r\nContent-Disposition: \(disposition)\r\n\r\n".utf8)
            body += part.bytes
            body += Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        let again = read(
            body, contentType: "multipart/form-data; boundary=\(boundary)", seed: 0, largest: 0,
            limits: UploadLimits(requestBytes: 1 << 20, fileBytes: 1 << 20, files: 100, fieldBytes: 1 << 20))
        require(again.failure == nil, "a form written from read parts fails: \(again.failure ?? "")")
        require(again.parts == parts, "a form written from read parts reads differently")
    }

    /// A header parameter value as a quoted string: backslash before `"` and `\`.
    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

/// A request body that arrives as the given buffers, one per `next()`.
struct BufferSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let buffers: [ByteBuffer]

    struct AsyncIterator: AsyncIteratorProtocol {
        var buffers: ArraySlice<ByteBuffer>

        mutating func next() async -> ByteBuffer? { buffers.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffers: buffers[...]) }
}
