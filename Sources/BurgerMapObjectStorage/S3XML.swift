import Foundation

/// Just enough XML for S3's answers (an error body, a ListObjectsV2 page): the text of simple,
/// non-nested elements found by name. A full parser would mean FoundationXML and libxml2 on the
/// server, for documents whose shape S3 fixes.
enum S3XML {
    /// The decoded text of every `<name>…</name>` in `text`, in order; `<name/>` gives "".
    static func elements(_ name: String, in text: Substring) -> [Substring] {
        var found: [Substring] = []
        var rest = text[...]
        let open = "<\(name)>"
        let close = "</\(name)>"
        let empty = "<\(name)/>"
        while true {
            let start = rest.range(of: open)
            let selfClosed = rest.range(of: empty)
            if let selfClosed, start == nil || selfClosed.lowerBound < start!.lowerBound {
                found.append(rest[selfClosed.upperBound..<selfClosed.upperBound])
                rest = rest[selfClosed.upperBound...]
                continue
            }
            guard let start, let end = rest[start.upperBound...].range(of: close) else { return found }
            found.append(rest[start.upperBound..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
    }

    /// The first element's decoded text, or nil.
    static func value(_ name: String, in text: Substring) -> String? {
        elements(name, in: text).first.map { decode($0) }
    }

    /// XML's five named entities and numeric character references.
    static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let scalar: UInt32? =
                    entity.hasPrefix("#x")
                    ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let scalar, let character = Unicode.Scalar(scalar) {
                    out.unicodeScalars.append(character)
                } else {
                    out += rest[amp...semi]
                }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    /// S3's error body: `<Error><Code>…</Code><Message>…</Message>…</Error>`.
    static func error(_ body: String) -> (code: String, message: String) {
        let text = body[...]
        return (value("Code", in: text) ?? "", value("Message", in: text) ?? "")
    }

    /// One ListObjectsV2 page: the entries and the continuation token when truncated.
    static func listPage(_ body: String) throws -> (objects: [S3ObjectInfo], next: String?) {
        let text = body[...]
        guard text.contains("<ListBucketResult") else {
            throw S3Error.invalidResponse("a listing without <ListBucketResult>: \(body.prefix(200))")
        }
        var objects: [S3ObjectInfo] = []
        for entry in elements("Contents", in: text) {
            guard let key = value("Key", in: entry), let size = value("Size", in: entry).flatMap({ Int64($0) }),
                let modified = value("LastModified", in: entry).flatMap(S3Dates.iso8601)
            else { throw S3Error.invalidResponse("a listing entry without Key, Size or LastModified: \(entry)") }
            objects.append(S3ObjectInfo(key: key, size: size, lastModified: modified))
        }
        let truncated = value("IsTruncated", in: text) == "true"
        let token = value("NextContinuationToken", in: text).flatMap { $0.isEmpty ? nil : $0 }
        if truncated && token == nil {
            throw S3Error.invalidResponse("a truncated listing without NextContinuationToken")
        }
        return (objects, truncated ? token : nil)
    }
}

/// The two date forms S3 uses.
enum S3Dates {
    /// `2013-05-24T00:00:00.000Z` (listings), with or without fractional seconds.
    static func iso8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// `Fri, 24 May 2013 00:00:00 GMT` (the Last-Modified header).
    static func http(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
