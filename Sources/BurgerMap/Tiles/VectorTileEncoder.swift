import BurgerMapCore

/// Writes Mapbox Vector Tile 2.1 bytes (the protobuf `Tile` message of vector_tile.proto) for
/// point layers.
///
/// Written by hand rather than through swift-protobuf's generated messages: a tile of points
/// needs six fields of three messages, and building it straight into one byte array avoids a
/// message object per feature and per value and a second copy when serializing. The encoder is
/// checked against an implementation written by others: `scripts/map-clients` decodes served
/// tiles with mapbox-vector-tile (PyPI) and GDAL's MVT driver, and `VectorTileEncoderTests`
/// compares a tile with bytes laid out by hand from the specification's own example.
struct VectorTileEncoder {
    private(set) var bytes: [UInt8] = []

    /// Appends one layer of point features.
    mutating func addLayer(_ layer: VectorTileLayer) {
        guard !layer.features.isEmpty else { return }
        var body: [UInt8] = []
        body.reserveCapacity(64 + layer.features.count * 24)
        Self.field(15, varint: 2, into: &body)  // version
        Self.field(1, bytes: Array(layer.name.utf8), into: &body)
        for feature in layer.features {
            var message: [UInt8] = []
            if let id = feature.id { Self.field(1, varint: id, into: &message) }
            Self.field(2, packed: feature.tags, into: &message)
            Self.field(3, varint: 1, into: &message)  // GeomType POINT
            Self.field(
                4, packed: [9, Self.zigzag(feature.x), Self.zigzag(feature.y)],  // MoveTo(1), dx, dy
                into: &message)
            Self.field(2, bytes: message, into: &body)
        }
        for key in layer.keys { Self.field(3, bytes: Array(key.utf8), into: &body) }
        for value in layer.values {
            var message: [UInt8] = []
            switch value {
            case .string(let text): Self.field(1, bytes: Array(text.utf8), into: &message)
            case .double(let number):
                Self.tag(3, wireType: 1, into: &message)
                withUnsafeBytes(of: number.bitPattern.littleEndian) { message.append(contentsOf: $0) }
            case .unsigned(let number): Self.field(5, varint: number, into: &message)
            case .bool(let flag): Self.field(7, varint: flag ? 1 : 0, into: &message)
            }
            Self.field(4, bytes: message, into: &body)
        }
        Self.field(5, varint: UInt64(TileAddress.extent), into: &body)
        Self.field(3, bytes: body, into: &bytes)
    }

    private static func zigzag(_ value: Int) -> UInt64 {
        UInt64(bitPattern: Int64(value << 1) ^ Int64(value >> 63))
    }

    private static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    private static func tag(_ field: Int, wireType: Int, into out: inout [UInt8]) {
        varint(UInt64(field << 3 | wireType), into: &out)
    }

    private static func field(_ field: Int, varint value: UInt64, into out: inout [UInt8]) {
        tag(field, wireType: 0, into: &out)
        varint(value, into: &out)
    }

    private static func field(_ field: Int, bytes value: [UInt8], into out: inout [UInt8]) {
        tag(field, wireType: 2, into: &out)
        varint(UInt64(value.count), into: &out)
        out.append(contentsOf: value)
    }

    private static func field(_ field: Int, packed values: [UInt64], into out: inout [UInt8]) {
        var packed: [UInt8] = []
        for value in values { varint(value, into: &packed) }
        Self.field(field, bytes: packed, into: &out)
    }
}

/// A property value of a vector tile feature.
enum VectorTileValue: Hashable {
    case string(String)
    case double(Double)
    case unsigned(UInt64)
    case bool(Bool)
}

/// One layer of point features being gathered: keys and values are shared by the layer's
/// features, each written once.
struct VectorTileLayer {
    struct Feature {
        var id: UInt64?
        var tags: [UInt64] = []
        var x: Int
        var y: Int
    }

    let name: String
    private(set) var features: [Feature] = []
    private(set) var keys: [String] = []
    private(set) var values: [VectorTileValue] = []
    private var keyIndex: [String: UInt64] = [:]
    private var valueIndex: [VectorTileValue: UInt64] = [:]

    init(name: String) {
        self.name = name
    }

    /// Adds a point with its properties (in the order given; `nil` values are left out).
    mutating func add(id: UInt64?, x: Int, y: Int, properties: [(String, VectorTileValue?)]) {
        var feature = Feature(id: id, x: x, y: y)
        for (key, value) in properties {
            guard let value else { continue }
            feature.tags.append(index(of: key))
            feature.tags.append(index(of: value))
        }
        features.append(feature)
    }

    private mutating func index(of key: String) -> UInt64 {
        if let index = keyIndex[key] { return index }
        let index = UInt64(keys.count)
        keys.append(key)
        keyIndex[key] = index
        return index
    }

    private mutating func index(of value: VectorTileValue) -> UInt64 {
        if let index = valueIndex[value] { return index }
        let index = UInt64(values.count)
        values.append(value)
        valueIndex[value] = index
        return index
    }
}

extension TileContent {
    /// The tile's MVT bytes: a `clusters` layer (`count`, `expansion_zoom` when the places ever
    /// split, at their mean position) and a `places` layer (`id`, `name`, `category`,
    /// `rating_avg` when reviewed, `review_count`); empty when the tile holds no place.
    package var vectorTile: [UInt8] {
        let address = query.address
        var clusterLayer = VectorTileLayer(name: "clusters")
        for cluster in clusters {
            let point = address.point(lat: cluster.lat, lng: cluster.lng)
            clusterLayer.add(
                id: UInt64(cluster.cell), x: point.x, y: point.y,
                properties: [
                    ("count", .unsigned(UInt64(cluster.summary.count))),
                    ("expansion_zoom", cluster.expansionZoom.map { .unsigned(UInt64($0)) }),
                ])
        }
        var placeLayer = VectorTileLayer(name: "places")
        for place in places {
            let point = address.point(lat: place.lat, lng: place.lng)
            placeLayer.add(
                id: UInt64(place.id), x: point.x, y: point.y,
                properties: [
                    ("id", .unsigned(UInt64(place.id))), ("name", .string(place.name)),
                    ("category", place.category.map { .string($0) }),
                    ("rating_avg", place.ratingAvg.map { .double($0) }),
                    ("review_count", .unsigned(UInt64(place.reviewCount))),
                ])
        }
        var encoder = VectorTileEncoder()
        encoder.addLayer(clusterLayer)
        encoder.addLayer(placeLayer)
        return encoder.bytes
    }
}
