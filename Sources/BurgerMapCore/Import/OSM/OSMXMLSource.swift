import Foundation

extension OSMXMLScanner {
    /// The value range of the current element's attribute `name`.
    func attribute(_ name: String) -> Range<Int>? {
        attributes.first { buffer[$0.name].elementsEqual(name.utf8) }?.value
    }

    /// An attribute value as text, entities and character references resolved (an unknown or
    /// broken reference is kept as written).
    func text(_ range: Range<Int>) -> String {
        let bytes = buffer[range]
        guard bytes.contains(0x26) else { return String(decoding: bytes, as: UTF8.self) }  // "&"
        let raw = String(decoding: bytes, as: UTF8.self)
        var result = ""
        var rest = raw[...]
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            var replacement: String?
            switch entity {
            case "amp": replacement = "&"
            case "lt": replacement = "<"
            case "gt": replacement = ">"
            case "quot": replacement = "\""
            case "apos": replacement = "'"
            default:
                let number =
                    entity.hasPrefix("#x")
                    ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                replacement = number.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            }
            if let replacement {
                result += replacement
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
            }
        }
        return result + rest
    }

    /// An attribute value as an integer (ids and refs), `nil` when it is not one.
    func integer(_ range: Range<Int>) -> Int64? {
        var index = range.lowerBound
        let negative = index < range.upperBound && buffer[index] == 0x2D
        if negative { index += 1 }
        guard index < range.upperBound else { return nil }
        var value: Int64 = 0
        while index < range.upperBound {
            let digit = buffer[index] &- 0x30
            guard digit < 10 else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
            guard !overflow, !overflow2 else { return nil }
            value = sum
            index += 1
        }
        return negative ? -value : value
    }

    /// An attribute value as a coordinate. Plain decimals of up to 15 digits (all OSM writes)
    /// are one exact integer divided by a power of ten, the same correctly rounded Double the PBF
    /// decoder makes of the same value; anything else goes through `Double(_:)`.
    func coordinate(_ range: Range<Int>) -> Double? {
        var index = range.lowerBound
        let negative = index < range.upperBound && buffer[index] == 0x2D
        if negative { index += 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var decimals = 0
        var dot = false
        while index < range.upperBound {
            let byte = buffer[index]
            if byte == 0x2E && !dot {
                dot = true
            } else if byte &- 0x30 < 10 && digits < 15 {
                mantissa = mantissa * 10 + Int64(byte &- 0x30)
                digits += 1
                if dot { decimals += 1 }
            } else {
                return Double(String(decoding: buffer[range], as: UTF8.self)).flatMap { $0.isFinite ? $0 : nil }
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        let value = Double(mantissa) / Self.powersOfTen[decimals]
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }
}

/// An OSM XML file (osmium's output, or the API's `<osm version="0.6">`) read pass by pass like a
/// PBF: each pass scans the file again, so memory holds no more than in a PBF read.
final class OSMXMLSource: OSMSource {
    private let path: String
    private let collector: OSMCollector
    private var scanner: OSMXMLScanner
    private var pass = OSMPass.waysAndRelations
    private let size: Int64
    var bytesRead: Int64 { pass.number * size + scanner.bytesRead }

    // The object being read: its kind, id, tags, node refs or way members.
    private var kind = OSMXMLScanner.Name.other
    private var id: Int64 = 0
    private var position = OSMPoint(lat: .nan, lon: .nan)
    private var wanted = false
    private var memberIndex: Int?
    private var tags: [String: String] = [:]
    private var refs: [Int64] = []
    private var members: [(id: Int64, role: String)] = []
    private var sawRoot = false

    init(path: String, collector: OSMCollector) throws {
        self.path = path
        self.collector = collector
        scanner = try OSMXMLScanner(path: path)
        size = scanner.size ?? 0
    }

    func begin(_ pass: OSMPass) throws {
        self.pass = pass
        scanner = try OSMXMLScanner(path: path)
        kind = .other
        sawRoot = false
    }

    /// Reads up to 4,096 elements (a bounded stretch, so `next()` hands out nodes as it finds them).
    func advance() throws -> Bool {
        for _ in 0..<4096 {
            guard try scanner.next() else {
                guard sawRoot else { throw ImportError.notADataset(path: path, reason: "it has no <osm> element") }
                return false
            }
            if !sawRoot {
                guard scanner.name == .osm, !scanner.isEnd else {
                    throw ImportError.notADataset(path: path, reason: "its root element is not <osm>")
                }
                sawRoot = true
                continue
            }
            if scanner.isEnd {
                if kind != .other && scanner.name == kind { try finishObject() }
                continue
            }
            try element()
            if scanner.closesItself && kind != .other && scanner.name == kind { try finishObject() }
        }
        return true
    }

    /// An integer attribute; the element's name is only made into text for the error (an
    /// interpolated enum per element took half of an XML read: 5.1 s instead of 2.2 s for 135 MB).
    private func number(_ attribute: String, of element: @autoclosure () -> String) throws -> Int64 {
        guard let range = scanner.attribute(attribute), let value = scanner.integer(range) else {
            throw ImportError.unreadable(
                path: path,
                reason:
                    "malformed OSM XML near byte \(scanner.bytesRead): <\(element())> without a numeric \(attribute)")
        }
        return value
    }

    private func element() throws {
        switch scanner.name {
        case .node, .way, .relation:
            kind = scanner.name
            id = try number("id", of: "\(kind)")
            tags.removeAll(keepingCapacity: true)
            refs.removeAll(keepingCapacity: true)
            members.removeAll(keepingCapacity: true)
            switch (kind, pass) {
            case (.node, .nodes):
                wanted = true
                let lat = scanner.attribute("lat").flatMap(scanner.coordinate)
                let lon = scanner.attribute("lon").flatMap(scanner.coordinate)
                position = OSMPoint(lat: lat ?? .nan, lon: lon ?? .nan)
                if let lat, let lon, let index = collector.nodes.index(of: id) {
                    collector.setPosition(index, lat: lat, lon: lon)
                }
            case (.way, .waysAndRelations), (.relation, .waysAndRelations): wanted = true
            case (.way, .memberWays):
                memberIndex = collector.memberWayIndex(id)
                wanted = memberIndex != nil
            default: wanted = false
            }
        case .tag where wanted && kind != .other:
            if let key = scanner.attribute("k"), let value = scanner.attribute("v") {
                tags[scanner.text(key)] = scanner.text(value)
            }
        case .nd where wanted && kind == .way:
            refs.append(try number("ref", of: "nd"))
        case .member where wanted && kind == .relation:
            guard scanner.attribute("type").map({ scanner.text($0) }) == "way" else { return }
            members.append((try number("ref", of: "member"), scanner.attribute("role").map(scanner.text) ?? ""))
        default: break
        }
    }

    private func finishObject() throws {
        defer { kind = .other }
        guard wanted else { return }
        switch (kind, pass) {
        case (.node, _) where !tags.isEmpty:
            collector.node(id: id, lat: position.lat, lon: position.lon, tags: tags)
        case (.way, .waysAndRelations): collector.way(id: id, tags: tags, refs: refs)
        case (.way, .memberWays): if let memberIndex { collector.setMemberWay(memberIndex, refs: refs) }
        case (.relation, _) where collector.wantsRelation(tags):
            collector.relation(id: id, tags: tags, wayMembers: members)
        default: break
        }
    }
}
