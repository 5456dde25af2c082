import Foundation
import HTTPTypes
import Hummingbird

@testable import BurgerMap
@testable import BurgerMapCore

/// Query parameters as the routes read them: `QueryReader` on a real Hummingbird `Request`,
/// `ListQuery`, the viewport's `bbox`, the answer's language, and the problem documents made
/// from what they refuse.
///
/// Input: the query string, then optionally a line feed and an `Accept-Language` value.
///
/// Invariants: a number read is always within its range; when no error was recorded for a
/// parameter its text's own value was used, and an error names that parameter; `validate` fails
/// exactly when errors were recorded; a bounding box is four numbers in range that print and
/// read back the same; a list query's limit is in 1...100; and every refusal renders as a problem
/// document in every language.
enum QueryTarget {
    static let cursors = CursorCodec(secret: ServiceSecret(bytes: Data(repeating: 3, count: 32)))

    static func run(_ data: UnsafeRawBufferPointer) {
        let newline = data.firstIndex(of: 0x0A) ?? data.count
        let query = String(decoding: data[..<newline], as: UTF8.self)
        var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/v1/places?" + query)
        if newline < data.count {
            head.headerFields[.acceptLanguage] = String(decoding: data[(newline + 1)...], as: UTF8.self)
        }
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let language = Language.of(request)
        if language != .english {
            let header = request.headers[.acceptLanguage]?.lowercased() ?? ""
            require(header.contains(language.rawValue), "\(language) chosen from \(header.debugDescription)")
        }

        var reader = QueryReader(request)
        checkDouble(&reader, "lat", in: -90...90, default: nil)
        checkDouble(&reader, "radius_m", in: 1...50_000, default: 1000)
        checkInt(&reader, "limit", in: 1...100, default: 20)
        checkBool(&reader, "reviewed_only")
        let before = reader.errors.count
        if let rating = reader.optionalDouble("min_rating", in: 1...5) {
            require((1...5).contains(rating), "min_rating \(rating)")
        } else {
            require(reader.errors.count == before, "an absent min_rating is an error")
        }
        do {
            try reader.validate()
            require(reader.errors.isEmpty, "validate passed with errors")
        } catch {
            require(!reader.errors.isEmpty, "validate failed without errors")
            checkRendered(error)
        }

        checkBoundingBox(reader.text("bbox"))
        do {
            let list = try ListQuery(request, cursors: cursors, scope: "reviews")
            require((1...100).contains(list.limit), "list limit \(list.limit)")
        } catch {
            checkRendered(error)
        }
    }

    static func checkDouble(
        _ reader: inout QueryReader, _ name: String, in range: ClosedRange<Double>, default fallback: Double?
    ) {
        let text = reader.text(name)
        let before = reader.errors.count
        let value = reader.double(name, in: range, default: fallback)
        require(range.contains(value), "\(name) = \(value) outside \(range)")
        checkErrors(reader, name, before: before)
        // A space there was a bare `+`, the number's sign (the reader reads numbers from the
        // query with `+` kept: `QueryReader.numberText`).
        if reader.errors.count == before, let text, !text.isEmpty {
            let written = text.hasPrefix(" ") ? "+" + text.dropFirst() : text
            require(value == Double(written), "\(name) = \(value) from \(text.debugDescription)")
        }
        // Only a parameter left out takes the default: one present with an empty value (`radius_m=`
        // or a bare `radius_m`) is malformed, as `QueryReader` documents.
        if text == nil, let fallback {
            require(value == fallback && reader.errors.count == before, "absent \(name) is not its default")
        }
    }

    static func checkInt(_ reader: inout QueryReader, _ name: String, in range: ClosedRange<Int>, default fallback: Int)
    {
        let text = reader.text(name)
        let before = reader.errors.count
        let value = reader.int(name, in: range, default: fallback)
        require(range.contains(value), "\(name) = \(value) outside \(range)")
        checkErrors(reader, name, before: before)
        if reader.errors.count == before, let text, !text.isEmpty {
            let written = text.hasPrefix(" ") ? "+" + text.dropFirst() : text
            require(value == Int(written), "\(name) = \(value) from \(text.debugDescription)")
        }
    }

    static func checkBool(_ reader: inout QueryReader, _ name: String) {
        let text = reader.text(name)
        let before = reader.errors.count
        let value = reader.bool(name)
        checkErrors(reader, name, before: before)
        if reader.errors.count == before, let text, !text.isEmpty {
            require(value == ["true", "1"].contains(text.lowercased()), "\(name) = \(value) from \(text)")
        }
    }

    /// At most one new error, and it names the parameter.
    static func checkErrors(_ reader: QueryReader, _ name: String, before: Int) {
        require(reader.errors.count <= before + 1, "several errors for \(name)")
        if reader.errors.count == before + 1 {
            require(reader.errors.last!.field == name, "an error for \(name) names \(reader.errors.last!.field)")
        }
    }

    static func checkBoundingBox(_ text: String?) {
        do {
            let box = try PlacesController.boundingBox(text)
            require(box.count == 4 && box.allSatisfy(\.isFinite), "bbox \(box)")
            require((-180...180).contains(box[0]) && (-180...180).contains(box[2]), "bbox longitudes \(box)")
            require((-90...90).contains(box[1]) && (-90...90).contains(box[3]) && box[1] <= box[3], "latitudes \(box)")
            let printed = box.map { String($0) }.joined(separator: ",")
            let again = try PlacesController.boundingBox(printed)
            require(again == box, "bbox \(printed) reads as \(again)")
        } catch let problem as Problem {
            require(problem.code == .validationFailed && problem.errors.map(\.field) == ["bbox"], "bbox problem")
            checkRendered(problem)
        } catch {
            require(false, "bbox refused with \(error)")
        }
    }

    /// A refusal is a problem document that renders in every language with its code's status.
    static func checkRendered(_ error: any Error) {
        guard let problem = error as? Problem else {
            require(false, "not a problem document: \(error)")
            return
        }
        require([.validationFailed, .invalidCursor].contains(problem.code), "query refused with \(problem.code)")
        for language in Language.allCases {
            let response = try? problem.response(in: language)
            require(response?.status == problem.status, "problem does not render in \(language)")
        }
    }
}
