import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// One Server-Sent Events message as a browser's `EventSource` sees it (`comment` for lines
/// that start with a colon, which `EventSource` drops and tests count).
struct ServerSentEvent: Equatable {
    var id: String?
    var event: String?
    var data: String?
    var comment: String?

    /// The `data:` line as JSON.
    var json: [String: Any] {
        get throws {
            try #require(
                try JSONSerialization.jsonObject(with: Data((data ?? "").utf8)) as? [String: Any])
        }
    }
}

/// A real HTTP client (async-http-client) reading a `text/event-stream` answer as it arrives,
/// with the SSE line rules (`id:`, `event:`, `data:`, comments, blank line ends a message).
/// Reading fails when nothing arrives for 10 s (no test waits forever for a frame).
final class EventStreamClient {
    let status: HTTPResponseStatus
    let headers: HTTPHeaders
    /// One client for every test: never shut down, so a test that fails midway cannot leave
    /// one behind (async-http-client stops the process when a client is dropped unclosed).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(10))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
    private var bytes: HTTPClientResponse.Body.AsyncIterator
    private var pending = ""

    static func open(
        port: Int, path: String = "/v1/streaming", token: String? = nil, lastEventID: String? = nil,
    ) async throws -> EventStreamClient {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await client.execute(request, timeout: .seconds(30))
        return EventStreamClient(response: response)
    }

    private init(response: HTTPClientResponse) {
        status = response.status
        headers = response.headers
        bytes = response.body.makeAsyncIterator()
    }

    /// The body of a refused stream (a problem document).
    func body() async throws -> String {
        var text = ""
        while let buffer = try await bytes.next() { text += String(buffer: buffer) }
        return text
    }

    /// The next message with data or a comment; `nil` when the server ended the stream.
    func next() async throws -> ServerSentEvent? {
        while true {
            if let range = pending.range(of: "\n\n") {
                let block = String(pending[..<range.lowerBound])
                pending = String(pending[range.upperBound...])
                var event = ServerSentEvent()
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(":") {
                        event.comment = line.dropFirst().trimmingCharacters(in: .whitespaces)
                        continue
                    }
                    let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                    let value = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
                    switch parts[0] {
                    case "id": event.id = value
                    case "event": event.event = value
                    case "data": event.data = (event.data.map { $0 + "\n" } ?? "") + value
                    default: break
                    }
                }
                if event.data != nil || event.comment != nil { return event }
                continue
            }
            guard let buffer = try await bytes.next() else { return nil }
            pending += String(buffer: buffer)
        }
    }

    /// The next message that is not a heartbeat.
    func nextEvent() async throws -> ServerSentEvent? {
        while let event = try await next() {
            if event.comment == nil { return event }
        }
        return nil
    }

    /// Ends the stream: the body is dropped, which cancels the request.
    func close() async {
        bytes = Self.ended
    }

    private static var ended: HTTPClientResponse.Body.AsyncIterator {
        HTTPClientResponse().body.makeAsyncIterator()
    }
}
