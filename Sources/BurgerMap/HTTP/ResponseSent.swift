import BurgerMapCore
import HTTPTypes
import Hummingbird

extension Response {
    /// What a middleware learns of an answer once it has gone out.
    struct Sent: Sendable {
        /// The body's bytes (none for `HEAD`).
        let bytes: Int
        /// Whether writing the body failed part way.
        let failed: Bool
    }

    /// Calls `sent` once, when the answer has gone out as far as a middleware can see: the one
    /// rule of the access log and the request metrics.
    /// - A `HEAD` answer: now, with no bytes. Hummingbird answers `HEAD` with `GET`'s head and
    ///   drops the body, so a wrapped stream would never be written, nor `sent` called.
    /// - A body of known length: now, with its length, the body untouched. Wrapped, it would lose
    ///   Hummingbird's one-write path for a body in one buffer: head, body and end went to the
    ///   channel as three writes, each a hop to the event loop, two of them a `write(2)` each
    ///   (`strace` of one `/health`; 0.64× → 0.75× the bare route, docs/performance/http-path.md).
    /// - A stream: once it is written or has failed, with the bytes written.
    mutating func whenSent(for request: Request, _ sent: @escaping @Sendable (Sent) -> Void) {
        if request.method == .head { return sent(Sent(bytes: 0, failed: false)) }
        if let length = body.contentLength { return sent(Sent(bytes: length, failed: false)) }
        let body = self.body
        self.body = ResponseBody { writer in
            let counting = CountingBodyWriter(base: writer)
            let counter = counting.counter
            do {
                try await body.write(counting)
            } catch {
                sent(Sent(bytes: counter.value, failed: true))
                throw error
            }
            sent(Sent(bytes: counter.value, failed: false))
        }
    }
}

/// Passes a response body through and counts its bytes (for `whenSent`).
struct CountingBodyWriter: ResponseBodyWriter {
    final class Counter: @unchecked Sendable {
        var value = 0
    }

    var base: any ResponseBodyWriter
    let counter = Counter()

    mutating func write(_ buffer: ByteBuffer) async throws {
        counter.value += buffer.readableBytes
        try await base.write(buffer)
    }

    mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for buffer in buffers { counter.value += buffer.readableBytes }
        try await base.write(contentsOf: buffers)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
