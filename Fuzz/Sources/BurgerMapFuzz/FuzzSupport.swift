import Dispatch
import Foundation

@testable import BurgerMap
@testable import BurgerMapCore

/// Stops the fuzzer with `message` when an invariant does not hold; libFuzzer saves the input.
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}

/// A value that a task fills in and a waiting thread reads after the semaphore.
private final class Slot<Value>: @unchecked Sendable {
    var value: Value?
}

/// Runs async code to its end from libFuzzer's synchronous callback. The code under test never
/// waits on anything outside itself (bodies are arrays of buffers), so blocking here is safe.
///
/// It also waits until the task has let go of the slot, that is until the task is gone: libFuzzer
/// counts mallocs and frees around each run, and a run that ends with the task still allocated
/// looks like a leak, which costs a full LeakSanitizer scan (about 40 ms) every time.
func runBlocking<Value>(_ body: @escaping @Sendable () async -> Value) -> Value {
    var slot = Slot<Value>()
    let done = DispatchSemaphore(value: 0)
    Task { [slot] in
        slot.value = await body()
        done.signal()
    }
    done.wait()
    while !isKnownUniquelyReferenced(&slot) { sched_yield() }
    return slot.value!
}

/// Splits `bytes` into pieces of 1...`largest` bytes drawn from `seed` (one piece when `largest`
/// is 0), the way a network delivers a body; the same input always cuts the same way.
func chunks(_ bytes: [UInt8], seed: UInt8, largest: Int) -> [ArraySlice<UInt8>] {
    guard largest > 0, !bytes.isEmpty else { return [bytes[...]] }
    var generator = SeededGenerator(seed: UInt64(seed) &* 0x1_0000_0001 &+ UInt64(bytes.count))
    var pieces: [ArraySlice<UInt8>] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + Int.random(in: 1...largest, using: &generator))
        pieces.append(bytes[start..<end])
        start = end
    }
    return pieces
}

/// A file in a private temporary folder that each run overwrites: the import readers read files.
enum ScratchFile {
    static let url: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "burgermap-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("input")
    }()

    /// Writes `bytes` and returns the file's URL.
    static func write(_ bytes: ArraySlice<UInt8>) -> URL {
        try! Data(bytes).write(to: url)
        return url
    }
}

/// The chunk size a reader uses for an input whose first byte is `selector`: 0 means the whole
/// file at once, anything else that many bytes. (Not the importer's 1 MiB: a 1 MiB buffer for
/// every read made AddressSanitizer's allocator the main cost of a run.)
func chunkSize(_ selector: UInt8, fileSize: Int) -> Int {
    selector == 0 ? max(1, fileSize) : Int(selector)
}

/// Whether `haystack` contains `needle` as a run of bytes.
func contains(_ haystack: some Collection<UInt8>, _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    let bytes = Array(haystack)
    return (0...(bytes.count - needle.count)).contains { start in
        bytes[start..<start + needle.count].elementsEqual(needle)
    }
}

/// What the importer does with one item, checked against the validation rules it promises:
/// a place it keeps has a trimmed name and trimmed fields that each pass the field's rule (the
/// same `TextField` the API applies: length in code points, no control characters), and finite
/// coordinates in range.
func checkImported(_ item: DatasetItem) {
    guard case .place(let draft) = item.validated(source: "fuzz") else { return }
    require(TextField.placeName.problem(draft.name) == nil, "name \(draft.name.debugDescription)")
    require(PlaceRow.trimmed(draft.name) == draft.name, "untrimmed name \(draft.name.debugDescription)")
    require(draft.lat.isFinite && abs(draft.lat) <= 90, "latitude \(draft.lat)")
    require(draft.lng.isFinite && abs(draft.lng) <= 180, "longitude \(draft.lng)")
    let texts: [(TextField, String?)] = [
        (.placeAddress, draft.address), (.placeCity, draft.city), (.placeProvince, draft.province),
        (.placePostalCode, draft.postalCode), (.placeCountry, draft.country), (.placePhone, draft.phone),
        (.placeCategory, draft.category), (.placeWebsite, draft.website), (.placeExternalID, draft.externalId),
    ]
    for case (let rule, let text?) in texts {
        require(!text.isEmpty && rule.problem(text) == nil, "\(rule.name) \(text.debugDescription)")
        require(PlaceRow.trimmed(text) == text, "untrimmed \(rule.name) \(text.debugDescription)")
    }
}
