/// The pairs of adjacent code points in a place's folded texts, by which an engine whose text
/// index has no way to list them finds the substrings of a 2-code-point query (which hold no
/// trigram): PostgreSQL's `place_search_pairs`, a B-tree of (pair, place) rows.
///
/// A pair is a key of its two code points and of the side it lies on: the names (`search_name`
/// and `search_names`) or the address line (`search_address`), so that a pair that every address
/// holds can still be looked up among the names alone. A pair with a control character (the line
/// breaks between `search_names`) is left out: no query holds one.
///
/// Listing every pair of 1,000,000 places would mean about 50,000,000 rows; most of them are the
/// few hundred pairs that most places hold, which a walk of the places finds a page of at once.
/// So a first load counts the places of each pair as it reads and lists only the pairs that at
/// most `listedAtMost` places hold; the others are named in `search_common_pairs`, and their
/// substring ranks are walked. Every later write lists the pairs of its place that are not
/// common, so that a pair not named common is listed for every place that holds it.
public enum SearchPairs {
    /// The most places of a pair that a first load lists: the cap of the matches `TieredSearch`
    /// ranks whole, above which it walks the rank anyway (at 0.2% of the places a walk finds a
    /// page within about 10,000 of them).
    public static let listedAtMost = TieredSearch.matchCap

    /// The key of the pair `first`, `second` on the names or on the address line: the two code
    /// points in 21 bits each, then the side.
    public static func key(_ first: Unicode.Scalar, _ second: Unicode.Scalar, inAddress: Bool) -> Int64 {
        (Int64(first.value) << 22) | (Int64(second.value) << 1) | (inAddress ? 1 : 0)
    }

    /// The keys of a folded query of exactly two code points, on the names and on the address
    /// line; `nil` for any other length.
    public static func keys(ofQuery folded: String) -> (name: Int64, address: Int64)? {
        let scalars = Array(folded.unicodeScalars)
        guard scalars.count == 2 else { return nil }
        return (key(scalars[0], scalars[1], inAddress: false), key(scalars[0], scalars[1], inAddress: true))
    }

    /// Every key of a place's folded texts, each once.
    public static func keys(name: String, names: String?, address: String?) -> [Int64] {
        var keys = Set<Int64>()
        for (text, inAddress) in [(name, false), (names ?? "", false), (address ?? "", true)] {
            forEachKey(of: text, inAddress: inAddress) { keys.insert($0) }
        }
        return keys.sorted()
    }

    /// Whether the code point `value` is in no pair: a control character (the line breaks
    /// between `search_names`), which no query holds.
    @inline(__always)
    static func breaksPairs(_ value: UInt32) -> Bool { value < 0x20 || value == 0x7F }

    /// Calls `body` with the key of each pair of `text` (repeats included), in order.
    @inline(__always)
    static func forEachKey(of text: String, inAddress: Bool, _ body: (Int64) -> Void) {
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            if breaksPairs(scalar.value) {
                previous = nil
                continue
            }
            if let previous { body(key(previous, scalar, inAddress: inAddress)) }
            previous = scalar
        }
    }
}

/// The places of each pair of a first load, counted as its rows are read (`SearchPairs`): the
/// pairs that more than `listedAtMost` places hold, and every (pair, place) of the others.
///
/// ASCII pairs, most of any import, are counted in flat arrays indexed by their two bytes, so that
/// the common ones cost an array read each (1,000,000 generated places: about 50,000,000 pairs);
/// the rest go through a dictionary to the same kind of slot.
public struct SearchPairCount: Sendable {
    public let listedAtMost: Int
    /// Per slot: the places that hold its pair, while at most `listedAtMost + 1`.
    private var places: [[Int64]]
    /// Per slot: whether more than `listedAtMost` places hold its pair.
    private var common: [Bool]
    /// Per slot: the key of its pair.
    private var keys: [Int64]
    /// The slot of each pair beyond ASCII.
    private var slots: [Int64: Int] = [:]

    /// The ASCII slots: 128 × 128 pairs, on either side.
    private static let asciiSlots = 128 * 128 * 2

    public init(listedAtMost: Int = SearchPairs.listedAtMost) {
        self.listedAtMost = listedAtMost
        places = Array(repeating: [], count: Self.asciiSlots)
        common = Array(repeating: false, count: Self.asciiSlots)
        keys = (0..<Self.asciiSlots).map { (slot: Int) -> Int64 in
            let first = Unicode.Scalar(UInt8(truncatingIfNeeded: slot >> 8))
            let second = Unicode.Scalar(UInt8(truncatingIfNeeded: (slot >> 1) & 0x7F))
            return SearchPairs.key(first, second, inAddress: slot & 1 == 1)
        }
    }

    /// Counts the pairs of one place's folded texts.
    public mutating func add(place: Int64, name: String, names: String?, address: String?) {
        add(name, place: place, side: 0)
        if let names { add(names, place: place, side: 0) }
        if let address { add(address, place: place, side: 1) }
    }

    private mutating func add(_ text: String, place: Int64, side: Int) {
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
            var previous = -1
            for byte in bytes {
                if SearchPairs.breaksPairs(UInt32(byte)) {
                    previous = -1
                    continue
                }
                if previous >= 0 { count(slot: (previous << 8) | (Int(byte) << 1) | side, place: place) }
                previous = Int(byte)
            }
            return true
        }
        guard ascii != true else { return }
        SearchPairs.forEachKey(of: text, inAddress: side == 1) { key in
            let (first, second) = (Int(key >> 22), Int((key >> 1) & 0x1F_FFFF))
            if first < 0x80, second < 0x80 {
                count(slot: (first << 8) | (second << 1) | side, place: place)
            } else if let slot = slots[key] {
                count(slot: slot, place: place)
            } else {
                slots[key] = keys.count
                keys.append(key)
                places.append([])
                common.append(false)
                count(slot: keys.count - 1, place: place)
            }
        }
    }

    @inline(__always)
    private mutating func count(slot: Int, place: Int64) {
        guard !common[slot], places[slot].last != place else { return }
        places[slot].append(place)
        if places[slot].count > listedAtMost {
            common[slot] = true
            places[slot] = []
        }
    }

    /// The keys of the pairs that more than `listedAtMost` places hold.
    public var commonKeys: [Int64] { keys.indices.filter { common[$0] }.map { keys[$0] } }

    /// Each pair of the others, with the places that hold it.
    public var listed: [(key: Int64, places: [Int64])] {
        keys.indices.filter { !common[$0] && !places[$0].isEmpty }.map { (keys[$0], places[$0]) }
    }
}
