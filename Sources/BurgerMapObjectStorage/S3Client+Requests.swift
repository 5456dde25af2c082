import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

extension S3Client {
    /// Signs and sends one request, retrying (with a fresh signature each time) on 5xx, 429, and
    /// on failures to get an answer at all. Returns the first other answer, body unread.
    func send(
        _ method: HTTPMethod, _ url: URL, headers: [(String, String)] = [], body: ByteBuffer? = nil,
        payloadHash: String = SigV4Signer.emptyPayloadHash
    ) async throws -> HTTPClientResponse {
        let salt = Self.salt(method.rawValue + " " + url.absoluteString)
        let (seconds, attoseconds) = requestTimeout.components
        let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        var attempt = 1
        while true {
            let outcome: Result<HTTPClientResponse, S3Error>
            do {
                let signed = signer.sign(
                    method: method.rawValue, url: url, headers: headers, payloadHash: payloadHash, date: now())
                var request = HTTPClientRequest(url: url.absoluteString)
                request.method = method
                for (name, value) in signed { request.headers.add(name: name, value: value) }
                if let body { request.body = .bytes(body) }
                outcome = .success(try await httpClient.execute(request, timeout: timeout))
            } catch let error as CancellationError {
                throw error
            } catch {
                if Task.isCancelled { throw CancellationError() }
                outcome = .failure(Self.transportError(error))
            }
            var failure: S3Error
            switch outcome {
            case .success(let response):
                let status = Int(response.status.code)
                guard status >= 500 || status == 429 else { return response }
                guard attempt < retry.attempts else { return response }
                let answer = String(buffer: (try? await response.body.collect(upTo: 64 * 1024)) ?? ByteBuffer())
                failure = self.failure(response, body: answer)
            case .failure(let error):
                failure = error
                guard attempt < retry.attempts else { throw failure }
            }
            let delay = retry.delay(afterAttempt: attempt, salt: salt)
            logger.warning(
                "object storage request failed, retrying",
                metadata: [
                    "method": "\(method.rawValue)", "url": "\(url.path)", "attempt": "\(attempt)",
                    "error": "\(failure)", "delay": "\(delay)",
                ])
            try await retry.sleep(delay)
            attempt += 1
        }
    }

    /// An error answer as an `S3Error`, from the status and S3's XML error body.
    func failure(_ response: HTTPClientResponse, body: String) -> S3Error {
        let (code, message) = S3XML.error(body)
        let status = Int(response.status.code)
        switch (status, code) {
        case (403, _): return .denied(code: code.isEmpty ? "Forbidden" : code, message: message)
        case (_, "NoSuchBucket"): return .noSuchBucket(configuration.bucket)
        default:
            return .rejected(status: status, code: code, message: message.isEmpty ? String(body.prefix(200)) : message)
        }
    }

    /// Any failure to get an answer (async-http-client's timeouts and closed connections, NIO's
    /// connection, DNS and TLS errors) means the store is unreachable; async-http-client's
    /// errors about the request itself (a bad URL…) are this client's bugs, reported as such.
    static func transportError(_ error: any Error) -> S3Error {
        if let error = error as? HTTPClientError {
            let unreachable: [HTTPClientError] = [
                .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .remoteConnectionClosed,
                .tlsHandshakeTimeout, .getConnectionFromPoolTimeout, .uncleanShutdown, .socksHandshakeTimeout,
                .httpProxyHandshakeTimeout, .cancelled,
            ]
            if !unreachable.contains(error) { return .invalidResponse("request failed: \(error)") }
        }
        return .unreachable(String(describing: error))
    }

    /// FNV-1a of the request line, to spread the retry waits of different requests.
    static func salt(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// Puts, reads back and deletes a small object at `probeKey`, so that a wrong key, a missing
    /// bucket or a policy that refuses this key shows at start-up rather than at the first upload.
    /// Throws `S3Error`: `.denied` with a message naming the bucket, the key id and what was
    /// refused; `.noSuchBucket`; `.unreachable`; or another error.
    public func checkAccess(probeKey: String) async throws {
        let payload = "BurgerMap object storage check \(now().timeIntervalSince1970)\n"
        let target = "s3://\(configuration.bucket)/\(probeKey) at \(configuration.endpoint.absoluteString)"
        let keyID = configuration.credentials.accessKeyID
        func step<T>(_ what: String, _ work: () async throws -> T) async throws -> T {
            do {
                return try await work()
            } catch S3Error.denied(let code, let message) {
                throw S3Error.denied(
                    code: code,
                    message: "access key \(keyID) may not \(what) \(target) (bucket \"\(configuration.bucket)\")"
                        + (message.isEmpty ? "" : ": \(message)"))
            }
        }
        try await step("write (PUT)") {
            try await put(
                key: probeKey, body: ByteBuffer(string: payload), contentType: "text/plain; charset=utf-8",
                cacheControl: "no-store", metadata: ["purpose": "access-check"])
        }
        let object = try await step("read (GET)") { try await get(key: probeKey) }
        guard let object else { throw S3Error.invalidResponse("\(target) is missing right after it was written") }
        let read = try await object.body.collect(upTo: 64 * 1024)
        guard String(buffer: read) == payload else {
            throw S3Error.invalidResponse("\(target) read back different bytes than were written")
        }
        try await step("delete (DELETE)") { try await delete(key: probeKey) }
    }
}
