import BurgerMapCore
import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// The size limits of a `multipart/form-data` upload, enforced while it streams.
struct UploadLimits: Sendable {
    /// The whole request body.
    var requestBytes = 60 << 20
    /// One file part.
    var fileBytes = 10 << 20
    /// How many file parts.
    var files = 5
    /// One non-file part (`rating`, `text`).
    var fieldBytes = 64 << 10
    /// The preamble, the header block of one part (its header lines and the blank line after
    /// them) or the epilogue, counted exactly (`MultipartHeaderGuard`).
    var headerBytes = 16 << 10
    /// How many parts of any kind: a form of a few fields and files has no use for more, and a
    /// body of a million tiny parts would otherwise cost work and errors for each.
    var parts = 16
    /// How many headers one part may have.
    var headersPerPart = 8
}

/// One complete part of a form.
enum FormPart {
    case field(name: String, value: [UInt8])
    case file(name: String, filename: String?, bytes: [UInt8])
}

/// Reads a `multipart/form-data` request body part by part as it arrives (MultipartKit's
/// `MultipartParser` fed with the body's buffers), so that at most one part is in memory, and
/// stops with `413` as soon as the request, a part or the number of files goes over its limit.
///
/// A part without a `Content-Disposition: form-data; name=…` header, bytes that break the
/// multipart syntax, and a body that ends before its closing boundary are `400`.
struct MultipartFormReader {
    let limits: UploadLimits
    /// Names of the parts that carry files (`photo`, `avatar`); other names are text fields.
    let fileFields: Set<String>

    /// Calls `handle` with each part as soon as it is complete, in order.
    func read(_ request: Request, handle: (FormPart) async throws -> Void) async throws {
        let boundary = try Self.boundary(request.headers[.contentType])
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limits.requestBytes {
            throw Problem(.payloadTooLarge, .bodyTooLarge)
        }
        let collector = PartCollector(limits: limits, fileFields: fileFields)
        let parser = MultipartParser(boundary: boundary)
        var headerGuard = MultipartHeaderGuard(boundary: boundary, maxHeaderBytes: limits.headerBytes)
        parser.onHeader = { name, value in collector.header(name, value) }
        parser.onBody = { buffer in collector.body(&buffer) }
        parser.onPartComplete = { collector.partComplete() }
        var received = 0
        for try await buffer in request.body {
            received += buffer.readableBytes
            guard received <= limits.requestBytes else { throw Problem(.payloadTooLarge, .bodyTooLarge) }
            switch headerGuard.check(buffer) {
            case .admitted: break
            case .nonASCIIHeaderName: throw Problem(.validationFailed, .multipartMalformed)
            case .headerBytesOverLimit: throw Problem(.payloadTooLarge, .partHeadersTooLarge)
            }
            do {
                try parser.execute(buffer)
            } catch {
                throw Problem(.validationFailed, .multipartMalformed)
            }
            if let failure = collector.failure { throw failure }
            for part in collector.takeCompleted() {
                try await handle(part)
            }
        }
        try Self.checkClosed(parser, collector)
    }

    /// MultipartParser has no "end of input" call. Once the closing boundary has been read it
    /// ignores everything (the epilogue); in any other state the probe below makes it report a
    /// body byte, a part end or a syntax error. So the body was complete exactly when the probe
    /// passes unnoticed and at least one part was seen.
    private static func checkClosed(_ parser: MultipartParser, _ collector: PartCollector) throws {
        guard collector.sawPart else { throw Problem(.validationFailed, .multipartTruncated) }
        collector.probing = true
        var noticed = false
        parser.onHeader = { _, _ in noticed = true }
        parser.onBody = { _ in noticed = true }
        parser.onPartComplete = { noticed = true }
        do {
            try parser.execute(ByteBuffer(string: "\r\n\r\nX"))
        } catch {
            noticed = true
        }
        if noticed { throw Problem(.validationFailed, .multipartTruncated) }
    }

    /// The boundary of a `multipart/form-data` Content-Type (quoted or not); anything else is `415`.
    static func boundary(_ contentType: String?) throws -> String {
        guard let contentType else {
            throw Problem(.unsupportedMediaType, .mediaTypeNotSupported, ["expected": "multipart/form-data"])
        }
        let (mediaType, parameters) = HeaderParameters.parse(contentType)
        guard mediaType == "multipart/form-data" else {
            throw Problem(.unsupportedMediaType, .mediaTypeNotSupported, ["expected": "multipart/form-data"])
        }
        guard let boundary = parameters["boundary"], (1...70).contains(boundary.utf8.count) else {
            throw Problem(.validationFailed, .multipartBoundaryMissing)
        }
        return boundary
    }
}

/// The text parts of a multipart form, each allowed once and required to be UTF-8.
struct FormFields {
    private var values: [String: String] = [:]
    private(set) var errors: [FieldError] = []

    mutating func record(_ name: String, _ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            errors.append(FieldError(field: name, code: "not_utf8", .fieldNotUTF8))
            return
        }
        guard values[name] == nil else {
            errors.append(FieldError(field: name, code: "duplicate", .fieldDuplicate))
            return
        }
        values[name] = text
    }

    func text(_ name: String) -> String? { values[name] }
}

/// The parser's callbacks land here: they cannot throw, so a broken limit is kept in `failure`
/// and the reader throws it once `execute` returns.
private final class PartCollector {
    let limits: UploadLimits
    let fileFields: Set<String>
    var failure: Problem?
    var sawPart = false
    var probing = false
    private var headers: [(String, String)] = []
    private var current: (name: String, filename: String?, isFile: Bool)?
    private var bytes: [UInt8] = []
    private var files = 0
    private var parts = 0
    private var completed: [FormPart] = []

    init(limits: UploadLimits, fileFields: Set<String>) {
        self.limits = limits
        self.fileFields = fileFields
    }

    func header(_ name: String, _ value: String) {
        sawPart = true
        guard failure == nil else { return }
        guard headers.count < limits.headersPerPart else {
            failure = Problem(.payloadTooLarge, .tooManyPartHeaders, ["max": "\(limits.headersPerPart)"])
            return
        }
        headers.append((name, value))
    }

    func body(_ buffer: inout ByteBuffer) {
        sawPart = true
        guard failure == nil, let part = startPartIfNeeded() else { return }
        let limit = part.isFile ? limits.fileBytes : limits.fieldBytes
        guard bytes.count + buffer.readableBytes <= limit else {
            failure = Problem(
                .payloadTooLarge, part.isFile ? .photoTooLarge : .partTooLarge,
                ["field": part.name, "max": part.isFile ? "10 MiB" : "\(limits.fieldBytes / 1024) KiB"])
            return
        }
        buffer.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
    }

    func partComplete() {
        sawPart = true
        guard failure == nil, let part = startPartIfNeeded() else { return }
        completed.append(
            part.isFile
                ? .file(name: part.name, filename: part.filename, bytes: bytes) : .field(name: part.name, value: bytes))
        bytes = []
        headers = []
        current = nil
    }

    func takeCompleted() -> [FormPart] {
        defer { completed = [] }
        return completed
    }

    /// The part whose headers were just read: its name from Content-Disposition, and whether it
    /// is a file (counted against the file limit when it starts).
    private func startPartIfNeeded() -> (name: String, filename: String?, isFile: Bool)? {
        if let current { return current }
        parts += 1
        guard parts <= limits.parts else {
            failure = Problem(.payloadTooLarge, .tooManyParts, ["max": "\(limits.parts)"])
            return nil
        }
        let disposition = headers.first { $0.0.lowercased() == "content-disposition" }?.1
        let (kind, parameters) = disposition.map(HeaderParameters.parse) ?? ("", [:])
        guard kind == "form-data", let name = parameters["name"], !name.isEmpty else {
            failure = Problem(.validationFailed, .multipartPartUnnamed)
            return nil
        }
        let isFile = fileFields.contains(name)
        if isFile {
            files += 1
            if files > limits.files {
                failure = Problem(.payloadTooLarge, .tooManyPhotos, ["max": "\(limits.files)"])
                return nil
            }
        }
        let part = (name: name, filename: parameters["filename*"] ?? parameters["filename"], isFile: isFile)
        current = part
        return part
    }
}

/// Parses `type/subtype; name=value; name="quoted \"value\""; name*=UTF-8''percent%20encoded`.
enum HeaderParameters {
    /// The lower-cased first token and the parameters by lower-cased name; `name*` values
    /// (RFC 8187) are decoded and kept under `name*`.
    static func parse(_ header: String) -> (String, [String: String]) {
        var scalars = Substring(header).unicodeScalars[...]
        func skipSpaces() {
            while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        }
        func token() -> String {
            var result = ""
            while let first = scalars.first, first != ";", first != "=" {
                result.unicodeScalars.append(first)
                scalars.removeFirst()
            }
            return result.trimmingCharacters(in: .whitespaces)
        }
        let kind = token().lowercased()
        var parameters: [String: String] = [:]
        while scalars.first == ";" {
            scalars.removeFirst()
            skipSpaces()
            let name = token().lowercased()
            guard scalars.first == "=" else { continue }
            scalars.removeFirst()
            skipSpaces()
            var value = ""
            if scalars.first == "\"" {
                scalars.removeFirst()
                while let first = scalars.popFirst(), first != "\"" {
                    if first == "\\", let escaped = scalars.popFirst() {
                        value.unicodeScalars.append(escaped)
                    } else {
                        value.unicodeScalars.append(first)
                    }
                }
                _ = token()
            } else {
                value = token()
            }
            if name.hasSuffix("*") {
                // charset'language'percent-encoded
                let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3, let decoded = String(pieces[2]).removingPercentEncoding { value = decoded }
            }
            if !name.isEmpty { parameters[name] = value }
        }
        return (kind, parameters)
    }
}
