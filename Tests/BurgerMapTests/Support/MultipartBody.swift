import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

/// A `multipart/form-data` body as clients write it.
struct MultipartBody {
    var boundary = "burgermap-\(UUID().uuidString)"
    private(set) var bytes: [UInt8] = []

    var contentType: String { "multipart/form-data; boundary=\"\(boundary)\"" }

    mutating func field(_ name: String, _ value: String) {
        bytes += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }

    mutating func file(_ name: String, _ data: [UInt8], filename: String = "photo.jpg", type: String = "image/jpeg") {
        bytes += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n"
                .utf8)
        bytes += data
        bytes += Array("\r\n".utf8)
    }

    mutating func raw(_ text: String) {
        bytes += Array(text.utf8)
    }

    mutating func raw(bytes more: [UInt8]) {
        bytes += more
    }

    /// The body with its closing boundary.
    var closed: [UInt8] { bytes + Array("--\(boundary)--\r\n".utf8) }
}

extension TestClientProtocol {
    /// Sends a multipart body (closed unless `closing` is false).
    func upload(
        _ method: HTTPRequest.Method = .post, _ uri: String, _ form: MultipartBody, token: String?,
        closing: Bool = true, headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        headers[.contentType] = form.contentType
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(
            uri: uri, method: method, headers: headers, body: ByteBuffer(bytes: closing ? form.closed : form.bytes))
    }
}
