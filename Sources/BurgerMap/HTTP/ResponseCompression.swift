import BurgerMapCore
import CompressNIO
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Compresses text answers (JSON, GeoJSON, problem documents, YAML, `text/*`) with `gzip` or
/// `deflate` when the client's `Accept-Encoding` asks for it.
///
/// The body is compressed as it is written, buffer by buffer, so a long answer is never held
/// twice; the compressed answer has no `Content-Length` (it goes out chunked). Answers of a known
/// length under `minimumSize` are sent as they are, since a few hundred bytes save less than the
/// compressor costs; answers of unknown length are always compressed. Every answer of a
/// compressible type carries `Vary: Accept-Encoding`, small ones too, so caches never hand a
/// compressed body to a client that did not ask for one. Images, bodies that already have a
/// `Content-Encoding`, `204`, `304` and 1xx answers are left alone. A `HEAD` answer gets the
/// headers its `GET` would get.
struct ResponseCompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The smallest body of known length that is compressed.
    var minimumSize = 1024
    /// zlib's level. Measured on the 2,000-place viewport (662 KB of JSON, same libz): level 1
    /// leaves 12.1% of the bytes in 3.3 ms, level 6 9.3% in 9.6 ms, level 9 8.9% in 29 ms.
    /// Level 1 is already well under the 25% goal; the 2.8 points level 6 would add cost 2.9
    /// times the CPU on a 2-core server (`scripts/bench-compression`).
    var level: Int32 = 1

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        guard Self.mayCompress(response) else { return response }
        response.headers.addVary("Accept-Encoding")
        let isHead = request.method == .head
        // A HEAD answer keeps its GET's Content-Length with an empty body (Hummingbird's
        // generated HEAD routes), so its length is read from the header.
        let length = isHead ? response.headers[.contentLength].flatMap { Int($0) } : response.body.contentLength
        if let length, length < minimumSize { return response }
        let coding = AcceptEncoding.preferredCoding(request.headers[values: .acceptEncoding].prefix(8))
        let algorithm: ZlibAlgorithm
        switch coding {
        case .identity: return response
        case .gzip: algorithm = .gzip
        case .deflate: algorithm = .zlib
        }
        response.headers[.contentEncoding] = coding.rawValue
        if let tag = response.headers[.eTag], !tag.hasPrefix("W/") {
            // The compressed bytes differ from the identity ones, so a strong tag would be wrong;
            // a weak one still matches the same content in `If-None-Match`.
            response.headers[.eTag] = "W/" + tag
        }
        if isHead {
            // Hummingbird makes a HEAD answer from its GET's outside this middleware and puts
            // `Content-Length: 0` on one that has none, which would tell the client the GET's
            // body is empty. So a HEAD gets the true compressed length: its GET's body compressed
            // the same way, counted and dropped (HEAD requests are rare; memory stays bounded).
            let compressed = try await Self.compressedLength(of: response.body, algorithm: algorithm, level: level)
            response.body = ResponseBody()
            response.headers[.contentLength] = String(compressed)
            return response
        }
        let body = response.body
        let level = self.level
        response.body = ResponseBody { writer in
            let compressor = try ZlibCompressor(
                algorithm: algorithm, configuration: ZlibConfiguration(compressionLevel: level))
            try await body.write(CompressingBodyWriter(parent: writer, compressor: compressor))
        }
        return response
    }

    /// How many bytes `body` compresses to.
    static func compressedLength(of body: ResponseBody, algorithm: ZlibAlgorithm, level: Int32) async throws -> Int {
        let counter = LengthCounter()
        let compressor = try ZlibCompressor(
            algorithm: algorithm, configuration: ZlibConfiguration(compressionLevel: level))
        try await body.write(CompressingBodyWriter(parent: counter, compressor: compressor))
        return counter.count.withLockedValue { $0 }
    }

    /// A body writer that only counts.
    struct LengthCounter: ResponseBodyWriter {
        let count = NIOLockedValueBox(0)
        func write(_ buffer: ByteBuffer) async throws { count.withLockedValue { $0 += buffer.readableBytes } }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    /// Whether the answer is of a type worth compressing and not encoded already.
    static func mayCompress(_ response: Response) -> Bool {
        let status = response.status.code
        // The fields themselves: `headers[name]` joins every value of a name into a new string.
        guard status >= 200, status != 204, status != 304,
            !response.headers.contains(where: { $0.name == .contentEncoding }),
            let type = response.headers.first(where: { $0.name == .contentType })
        else { return false }
        return isCompressible(mediaType: type.value)
    }

    /// Whether a `Content-Type` names text, JSON or YAML (`text/…`, `…/json`, `…+json`, `…/yaml`,
    /// `…+yaml`, any case, parameters and spaces around the type ignored). Compared byte by byte:
    /// lowercasing and trimming the header (Foundation's `lowercased`, `trimmingCharacters`) took
    /// 4.4% of a `/health` request's time in a profile, for every answer.
    static func isCompressible(mediaType type: String) -> Bool {
        var type = type
        return type.withUTF8 { isCompressible(mediaType: $0.prefix { $0 != UInt8(ascii: ";") }) }
    }

    /// The same, on the media type's bytes (read in place, not copied into an array).
    private static func isCompressible(mediaType type: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var bytes = type
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        func lowered(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        func hasPrefix(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count >= count else { return false }
            return zip(bytes.prefix(count), UnsafeBufferPointer(start: text.utf8Start, count: count)).allSatisfy {
                lowered($0) == $1
            }
        }
        func hasSuffix(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count >= count else { return false }
            return zip(bytes.suffix(count), UnsafeBufferPointer(start: text.utf8Start, count: count)).allSatisfy {
                lowered($0) == $1
            }
        }
        // An event stream is never compressed: a compressor holds back what it has not yet
        // emitted, and each event must reach the client the moment it is written.
        if hasPrefix("text/event-stream") { return false }
        return hasPrefix("text/") || hasSuffix("/json") || hasSuffix("+json") || hasSuffix("/yaml")
            || hasSuffix("+yaml")
    }
}

/// A body writer that deflates what it is given and passes the compressed bytes on as they come.
///
/// Written here because compress-nio offers the compressor but no `ResponseBodyWriter`, and its
/// window-based helper takes a synchronous callback while writing to the client is async.
struct CompressingBodyWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    let compressor: ZlibCompressor

    /// Output buffers are at most this large: one buffer per 64 KiB of compressed bytes, so the
    /// writer never holds more than that beyond the caller's own buffer.
    static let maximumOutputBuffer = 64 * 1024

    mutating func write(_ buffer: ByteBuffer) async throws {
        var input = buffer
        while input.readableBytes > 0 {
            let before = input.readableBytes
            var output = ByteBufferAllocator().buffer(
                capacity: min(Self.maximumOutputBuffer, max(4096, compressor.maxSize(from: input))))
            do {
                try compressor.deflate(from: &input, to: &output, flush: .no)
            } catch let error as CompressNIOError where error == .bufferOverflow {
                // The output buffer is full: send it and go on with the rest of the input.
            }
            guard input.readableBytes < before || output.readableBytes > 0 else {
                throw CompressNIOError.internalError
            }
            if output.readableBytes > 0 { try await parent.write(output) }
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        var empty = ByteBuffer()
        var finished = false
        while !finished {
            var output = ByteBufferAllocator().buffer(capacity: 16 * 1024)
            do {
                try compressor.deflate(from: &empty, to: &output, flush: .finish)
                finished = true
            } catch let error as CompressNIOError where error == .bufferOverflow {
                guard output.readableBytes > 0 else { throw CompressNIOError.internalError }
            }
            if output.readableBytes > 0 { try await parent.write(output) }
        }
        try await parent.finish(trailingHeaders)
    }
}
