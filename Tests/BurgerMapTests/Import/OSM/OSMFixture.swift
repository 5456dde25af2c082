import BurgerMapCore
import Foundation
import Testing

/// A small extract written by the test as OSM XML, with what a reader must find in it worked out
/// from the shapes it drew (rectangles and their centres, a U of three rectangles, a square with a
/// hole), not from the reader's own geometry code. Coordinates are whole 1e-7 degrees, as in OSM.
struct OSMFixture {
    struct Node {
        var id: Int64
        var lat: Int64
        var lon: Int64
        var tags: [(String, String)] = []
    }
    struct Way {
        var id: Int64
        var refs: [Int64]
        var tags: [(String, String)] = []
    }
    struct Relation {
        var id: Int64
        var members: [(type: String, ref: Int64, role: String)]
        var tags: [(String, String)]
    }
    /// What the reader must yield for one object under a filter.
    struct Expected {
        var id: String
        var filters: Set<OSMPlaceFilter>
        var lat = 0.0
        var lng = 0.0
        var tags: [String: String] = [:]
        var skipReason: String?
    }

    var nodes: [Node] = []
    var ways: [Way] = []
    var relations: [Relation] = []
    var expected: [Expected] = []
    private var nextNode: Int64 = 1000

    static let both: Set<OSMPlaceFilter> = [.burger, .allFood]
    static let allFoodOnly: Set<OSMPlaceFilter> = [.allFood]

    /// An untagged node at (lat, lon) in 1e-7 degrees; its id.
    mutating func point(_ lat: Int64, _ lon: Int64) -> Int64 {
        nextNode += 1
        nodes.append(Node(id: nextNode, lat: lat, lon: lon))
        return nextNode
    }

    /// A closed way around the corners (lat, lon) given in order.
    mutating func ring(_ corners: [(Int64, Int64)]) -> [Int64] {
        let ids = corners.map { point($0.0, $0.1) }
        return ids + [ids[0]]
    }

    mutating func placeNode(
        _ id: Int64, _ lat: Int64, _ lon: Int64, _ tags: [(String, String)], _ filters: Set<OSMPlaceFilter>
    ) {
        nodes.append(Node(id: id, lat: lat, lon: lon, tags: tags))
        if !filters.isEmpty { expect("node/\(id)", filters, Double(lat) / 1e7, Double(lon) / 1e7, tags) }
    }

    mutating func expect(
        _ id: String, _ filters: Set<OSMPlaceFilter>, _ lat: Double, _ lng: Double, _ tags: [(String, String)]
    ) {
        expected.append(
            Expected(id: id, filters: filters, lat: lat, lng: lng, tags: Dictionary(tags, uniquingKeysWith: { $1 })))
    }

    mutating func skip(_ id: String, _ filters: Set<OSMPlaceFilter>, _ reason: String) {
        expected.append(Expected(id: id, filters: filters, skipReason: reason))
    }

    /// The items a reader with `filter` must yield, by id.
    func expectedItems(_ filter: OSMPlaceFilter) -> [String: Expected] {
        Dictionary(uniqueKeysWithValues: expected.filter { $0.filters.contains(filter) }.map { ($0.id, $0) })
    }

    // MARK: XML

    static func degrees(_ value: Int64) -> String {
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        let fraction = String(magnitude % 10_000_000)
        return "\(sign)\(magnitude / 10_000_000).\(String(repeating: "0", count: 7 - fraction.count))\(fraction)"
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;")
    }

    static func tagLines(_ tags: [(String, String)]) -> String {
        tags.map { "    <tag k=\"\(escaped($0.0))\" v=\"\(escaped($0.1))\"/>\n" }.joined()
    }

    /// The extract as the API writes it: `<osm version="0.6">`, a `<bounds>`, nodes, ways and
    /// relations sorted by id.
    var xml: String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"BurgerMap tests\">\n"
        text +=
            "  <!-- written by OSMFixture -->\n  <bounds minlat=\"-90\" minlon=\"-180\" maxlat=\"90\" maxlon=\"180\"/>\n"
        for node in nodes.sorted(by: { $0.id < $1.id }) {
            let head =
                "  <node id=\"\(node.id)\" version=\"1\" lat=\"\(Self.degrees(node.lat))\" lon=\"\(Self.degrees(node.lon))\""
            text += node.tags.isEmpty ? head + "/>\n" : head + ">\n" + Self.tagLines(node.tags) + "  </node>\n"
        }
        for way in ways.sorted(by: { $0.id < $1.id }) {
            text += "  <way id=\"\(way.id)\" version=\"1\">\n"
            text += way.refs.map { "    <nd ref=\"\($0)\"/>\n" }.joined() + Self.tagLines(way.tags) + "  </way>\n"
        }
        for relation in relations.sorted(by: { $0.id < $1.id }) {
            text += "  <relation id=\"\(relation.id)\" version=\"1\">\n"
            text += relation.members.map {
                "    <member type=\"\($0.type)\" ref=\"\($0.ref)\" role=\"\(Self.escaped($0.role))\"/>\n"
            }.joined()
            text += Self.tagLines(relation.tags) + "  </relation>\n"
        }
        return text + "</osm>\n"
    }
}
