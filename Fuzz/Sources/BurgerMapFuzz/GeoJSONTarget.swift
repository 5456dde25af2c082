import Foundation

@testable import BurgerMap
@testable import BurgerMapCore

/// The GeoJSON importer: `GeoJSONFeatureReader` on a real file, each feature through
/// `GeoJSONPlaceRowReader.item(from:)` and row validation.
///
/// Input: one byte choosing the read chunk size (0: the whole file, else that many bytes), then the file.
///
/// Invariants: the features (and the error, if any) do not depend on the chunk size; features
/// are numbered 1, 2, 3…; when Foundation's JSON parser reads the file as an object with one
/// `features` array, the streaming reader hands out exactly its elements; and every place the
/// importer keeps passes its validation rules.
enum GeoJSONTarget {
    struct Feature: Equatable {
        var number: Int
        var bytes: [UInt8]
        var problem: String?
    }

    static func run(_ data: UnsafeRawBufferPointer) {
        guard let selector = data.first else { return }
        let file = Array(data.dropFirst())
        let url = ScratchFile.write(file[...])
        let whole = features(url, chunkSize: chunkSize(0, fileSize: file.count))
        let pieces = features(url, chunkSize: chunkSize(selector, fileSize: file.count))
        require(pieces.features == whole.features, "features depend on the chunk size")
        require(pieces.error == whole.error, "the error depends on the chunk size")
        for (index, feature) in whole.features.enumerated() {
            require(feature.number == index + 1, "feature \(index + 1) numbered \(feature.number)")
            require(!feature.bytes.isEmpty, "an empty feature")
            if feature.problem == nil { checkImported(GeoJSONPlaceRowReader.item(from: feature.bytes)) }
        }
        checkAgainstFoundation(whole, file: file)
    }

    static func features(_ url: URL, chunkSize: Int) -> (features: [Feature], error: String?) {
        var reader = GeoJSONFeatureReader(source: try! ByteSource(url: url, chunkSize: chunkSize), path: "input")
        var result: [Feature] = []
        do {
            while let element = try reader.next() {
                result.append(Feature(number: element.number, bytes: element.bytes, problem: element.problem))
            }
        } catch let error as ImportError {
            return (result, error.description)
        } catch {
            require(false, "not an import error: \(error)")
        }
        return (result, nil)
    }

    /// Where Foundation sees exactly one top-level `features` array, the streaming reader must
    /// hand out the same elements. Only files that spell the key once and use no `\u` escape are
    /// compared: the streaming reader matches the key's bytes, as written.
    static func checkAgainstFoundation(_ read: (features: [Feature], error: String?), file: [UInt8]) {
        guard file.count < 1 << 16, !contains(file, Array("\\u".utf8)),
            occurrences(of: Array("features".utf8), in: file) == 1,
            let object = try? JSONSerialization.jsonObject(with: Data(file)) as? [String: Any],
            let elements = object["features"] as? [Any]
        else { return }
        require(read.error == nil, "Foundation reads \(elements.count) features, the reader fails: \(read.error!)")
        require(read.features.count == elements.count, "\(read.features.count) features, Foundation \(elements.count)")
        for (feature, element) in zip(read.features, elements) {
            let mine = try? JSONSerialization.jsonObject(with: Data(feature.bytes), options: .fragmentsAllowed)
            require(mine != nil && canonical(mine!) == canonical(element), "feature \(feature.number) differs")
        }
    }

    private static func canonical(_ value: Any) -> Data? {
        try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys, .fragmentsAllowed])
    }

    private static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard haystack.count >= needle.count else { return 0 }
        return (0...(haystack.count - needle.count)).count { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
