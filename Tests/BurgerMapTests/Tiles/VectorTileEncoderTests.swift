import BurgerMapCore
import Foundation
import Testing

@testable import BurgerMap

@Suite("Vector tile encoding")
struct VectorTileEncoderTests {
    @Test("a one-point layer is the bytes the specification lays out (its point example: 25,17 → 9 50 34)")
    func specificationExample() {
        var layer = VectorTileLayer(name: "points")
        layer.add(id: 1, x: 25, y: 17, properties: [("hello", .string("world")), ("absent", nil)])
        var encoder = VectorTileEncoder()
        encoder.addLayer(layer)
        let feature: [UInt8] = [0x08, 0x01, 0x12, 0x02, 0x00, 0x00, 0x18, 0x01, 0x22, 0x03, 0x09, 50, 34]
        var body: [UInt8] = [0x78, 0x02, 0x0A, 0x06] + Array("points".utf8)
        body += [0x12, UInt8(feature.count)] + feature
        body += [0x1A, 0x05] + Array("hello".utf8)
        body += [0x22, 0x07, 0x0A, 0x05] + Array("world".utf8)
        body += [0x28, 0x80, 0x20]
        #expect(encoder.bytes == [0x1A, UInt8(body.count)] + body)
    }

    @Test("values of each kind and negative offsets read back; a layer without features is left out")
    func roundTrip() throws {
        var layer = VectorTileLayer(name: "mixed")
        layer.add(
            id: 7, x: -3, y: 4100,
            properties: [
                ("name", .string("버거 バーガー")), ("rating", .double(4.25)), ("count", .unsigned(300)),
                ("open", .bool(true)),
            ])
        layer.add(id: nil, x: 0, y: 0, properties: [("name", .string("버거 バーガー"))])
        var encoder = VectorTileEncoder()
        encoder.addLayer(VectorTileLayer(name: "empty"))
        encoder.addLayer(layer)
        let tile = try DecodedTile(encoder.bytes)
        #expect(Array(tile.layers.keys) == ["mixed"])
        let features = try #require(tile.layers["mixed"]?.features)
        #expect(features.count == 2)
        #expect(features[0].id == 7 && features[0].x == -3 && features[0].y == 4100)
        #expect(features[0].properties["rating"] == .double(4.25))
        #expect(features[0].properties["count"] == .unsigned(300))
        #expect(features[0].properties["open"] == .bool(true))
        #expect(features[1].id == nil && features[1].properties == ["name": .string("버거 バーガー")])
        #expect(tile.layers["mixed"]?.extent == 4096 && tile.layers["mixed"]?.version == 2)
    }

    @Test("an import's cells stay within the bound, coarsening as they must, and hold every place")
    func batchCells() {
        var random = SeededGenerator(seed: 3)
        var facts = PlaceBatchFacts()
        var positions: [(Double, Double)] = []
        for id in 0..<6_000 {
            let position = (Double.random(in: -85...85, using: &random), Double.random(in: -180...180, using: &random))
            positions.append(position)
            facts.add(id: Int64(id), lat: position.0, lng: position.1)
        }
        #expect(facts.cells.count <= EventDetails.maximumCells)
        #expect(facts.cellLevel < PlaceBatchFacts.finestCellLevel && facts.cellLevel % 2 == 0)
        for (lat, lng) in positions {
            #expect(facts.cells.contains(PlaceCells.cell(of: PlaceCells.key(lat: lat, lng: lng), at: facts.cellLevel)))
        }
        var few = PlaceBatchFacts()
        few.add(id: 1, lat: 37.5, lng: 127)
        few.widen(lat: 35, lng: 139)
        #expect(few.count == 1 && few.cellLevel == 20 && few.cells.count == 2)
        let event = few.event(.placesImported, source: "s")
        #expect(event?.details.cells == few.cells.sorted() && event?.details.cellLevel == 20)
        #expect(EventDetails(json: event!.details.json) == event!.details)
    }
}
