import Foundation

/// One item of a dataset as read: a row, or a row that cannot even be read as one.
package enum DatasetItem {
    case row(PlaceRow)
    case malformed(String)

    /// The item checked and turned into a place for `source` (of `category` unless the row
    /// names its own), or the reason to skip it.
    package func validated(source: String, category: String? = nil, timeZone: String? = nil) -> ImportItem {
        switch self {
        case .malformed(let why): .skip(.malformed(why))
        case .row(let row):
            switch row.draft(source: source, category: category, timeZone: timeZone) {
            case .success(let draft): .place(draft)
            case .failure(let reason): .skip(reason)
            }
        }
    }
}

/// One validated item, ready for the database.
public enum ImportItem: Sendable {
    case place(PlaceDraft)
    case skip(ImportSkip.Reason)
}

/// A dataset read one row (CSV) or feature (GeoJSON) at a time.
package protocol PlaceRowReader {
    /// "line" or "feature": how reports name an item's position.
    var locationWord: String { get }
    var bytesRead: Int64 { get }
    var size: Int64? { get }
    /// The next item and its position (line or feature number), or `nil` at the end.
    mutating func next() throws -> (position: Int, item: DatasetItem)?
}

/// Reads CSV rows by header name (case-insensitive); unknown columns are ignored.
package struct CSVPlaceRowReader: PlaceRowReader {
    private var reader: CSVReader
    private var record = CSVRecord()
    private var fieldIndices: [(index: Int, field: WritableKeyPath<PlaceRow, String?>)] = []
    /// The `name:xx` columns and their languages.
    private var nameIndices: [(index: Int, language: String)] = []
    package let locationWord = "line"

    package init(source: ByteSource, path: String) throws {
        reader = CSVReader(source: source)
        guard try reader.next(into: &record), record.problem == nil else {
            throw ImportError.notADataset(path: path, reason: "no header row")
        }
        let header = (0..<record.count).map {
            record.field($0)?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        }
        for column in PlaceRow.columns {
            if let index = column.names.lazy.compactMap({ header.firstIndex(of: $0) }).first {
                fieldIndices.append((index, column.field))
            }
        }
        for index in 0..<record.count {
            if let language = record.field(index).flatMap(PlaceRow.nameLanguage) {
                nameIndices.append((index, language))
            }
        }
        let found = Set(fieldIndices.map(\.field))
        for (required, label) in [
            (\PlaceRow.name, "name"), (\.latitude, "latitude or lat"), (\.longitude, "longitude, lng or lon"),
        ]
        where !found.contains(required) {
            var reason = "the header has no \(label) column"
            // A file exported with another separator reads as one column holding all the names.
            if header.count == 1, let separator = [";", "\t", "|"].first(where: { header[0].contains($0) }) {
                reason +=
                    " (its names are separated by \(separator == "\t" ? "tabs" : "`\(separator)`"): save the file as comma-separated)"
            }
            throw ImportError.notADataset(path: path, reason: reason)
        }
    }

    package var bytesRead: Int64 { reader.bytesRead }
    package var size: Int64? { reader.size }

    package mutating func next() throws -> (position: Int, item: DatasetItem)? {
        while try reader.next(into: &record) {
            if let problem = record.problem { return (record.line, .malformed(problem)) }
            // Blank lines are not rows.
            if record.count == 1, record.field(0)?.allSatisfy(\.isWhitespace) ?? true { continue }
            var row = PlaceRow()
            for (index, field) in fieldIndices {
                row[keyPath: field] = record.field(index)
            }
            for (index, language) in nameIndices {
                if let name = record.field(index), !name.isEmpty { row.names[language] = name }
            }
            return (record.line, .row(row))
        }
        return nil
    }
}

/// Reads the Point features of a GeoJSON FeatureCollection; properties are named as CSV columns.
package struct GeoJSONPlaceRowReader: PlaceRowReader {
    private var reader: GeoJSONFeatureReader
    package let locationWord = "feature"

    package init(source: ByteSource, path: String) {
        reader = GeoJSONFeatureReader(source: source, path: path)
    }

    package var bytesRead: Int64 { reader.bytesRead }
    package var size: Int64? { reader.size }

    package mutating func next() throws -> (position: Int, item: DatasetItem)? {
        guard let element = try reader.next() else { return nil }
        if let problem = element.problem { return (element.number, .malformed(problem)) }
        return (element.number, Self.item(from: element.bytes))
    }

    /// The parts of a feature the importer reads.
    private struct Feature: Decodable {
        struct Geometry: Decodable {
            var type: String?
            var coordinates: [JSONScalar]?
        }
        var type: String?
        var id: JSONScalar?
        var geometry: Geometry?
        var properties: [String: JSONScalar]?
    }

    /// A JSON value as the importer sees it: text, a number, or something it ignores.
    private enum JSONScalar: Decodable {
        case text(String)
        case number(Double)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .other
            }
        }

        var text: String? {
            switch self {
            case .text(let text): text
            // Whole numbers (ids, postal codes) without a trailing ".0".
            case .number(let value):
                value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
            case .other: nil
            }
        }
    }

    package static func item(from bytes: [UInt8]) -> DatasetItem {
        guard let feature = try? JSONDecoder().decode(Feature.self, from: Data(bytes)) else {
            return .malformed("not a valid JSON object")
        }
        guard feature.type == "Feature" else { return .malformed("not a Feature object") }
        guard let geometry = feature.geometry, geometry.type == "Point" else {
            return .malformed("geometry is not a Point")
        }
        guard let coordinates = geometry.coordinates, coordinates.count >= 2,
            case .number(let lng) = coordinates[0], case .number(let lat) = coordinates[1]
        else {
            return .malformed("Point coordinates are not two numbers")
        }
        var properties: [String: String] = [:]
        var row = PlaceRow()
        for (key, value) in feature.properties ?? [:] {
            guard let text = value.text else { continue }
            properties[key.lowercased()] = text
            if let language = PlaceRow.nameLanguage(key) { row.names[language] = text }
        }
        for column in PlaceRow.columns {
            row[keyPath: column.field] = column.names.lazy.compactMap { properties[$0] }.first
        }
        row.latitude = String(lat)
        row.longitude = String(lng)
        if row.externalID == nil { row.externalID = feature.id?.text }
        return .row(row)
    }
}
