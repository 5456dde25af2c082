import Foundation

/// Reads Mapbox Vector Tile bytes back for the tests: a protobuf reader of its own (apart from
/// the service's encoder), strict about wire types and lengths. scripts/map-clients decodes
/// the same tiles with mapbox-vector-tile and GDAL.
struct DecodedTile {
    struct Feature {
        var id: UInt64?
        var type = 0
        var x = 0
        var y = 0
        var properties: [String: DecodedValue] = [:]
    }

    struct Layer {
        var name = ""
        var version = 1
        var extent = 4096
        var features: [Feature] = []
    }

    var layers: [String: Layer] = [:]

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    init(_ bytes: [UInt8]) throws {
        var reader = ProtobufReader(bytes[...])
        while let (field, wire) = try reader.tag() {
            guard field == 3, wire == 2 else {
                try reader.skip(wire)
                continue
            }
            let layer = try Self.layer(try reader.lengthDelimited())
            layers[layer.name] = layer
        }
    }

    private static func layer(_ bytes: ArraySlice<UInt8>) throws -> Layer {
        var reader = ProtobufReader(bytes)
        var layer = Layer()
        var keys: [String] = []
        var values: [DecodedValue] = []
        var rawFeatures: [(id: UInt64?, type: Int, tags: [UInt64], geometry: [UInt64])] = []
        while let (field, wire) = try reader.tag() {
            switch (field, wire) {
            case (15, 0): layer.version = Int(try reader.varint())
            case (1, 2): layer.name = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
            case (2, 2): rawFeatures.append(try feature(try reader.lengthDelimited()))
            case (3, 2): keys.append(String(decoding: try reader.lengthDelimited(), as: UTF8.self))
            case (4, 2): values.append(try value(try reader.lengthDelimited()))
            case (5, 0): layer.extent = Int(try reader.varint())
            default: try reader.skip(wire)
            }
        }
        for raw in rawFeatures {
            guard raw.geometry.count == 3, raw.geometry[0] == 9 else {
                throw Malformed(description: "not one MoveTo: \(raw.geometry)")
            }
            var feature = Feature(id: raw.id, type: raw.type)
            feature.x = unzigzag(raw.geometry[1])
            feature.y = unzigzag(raw.geometry[2])
            guard raw.tags.count % 2 == 0 else { throw Malformed(description: "odd tags") }
            for index in stride(from: 0, to: raw.tags.count, by: 2) {
                let (key, value) = (Int(raw.tags[index]), Int(raw.tags[index + 1]))
                guard keys.indices.contains(key), values.indices.contains(value) else {
                    throw Malformed(description: "tag out of range")
                }
                feature.properties[keys[key]] = values[value]
            }
            layer.features.append(feature)
        }
        return layer
    }

    private static func feature(_ bytes: ArraySlice<UInt8>) throws -> (
        id: UInt64?, type: Int, tags: [UInt64], geometry: [UInt64]
    ) {
        var reader = ProtobufReader(bytes)
        var result: (id: UInt64?, type: Int, tags: [UInt64], geometry: [UInt64]) = (nil, 0, [], [])
        while let (field, wire) = try reader.tag() {
            switch (field, wire) {
            case (1, 0): result.id = try reader.varint()
            case (2, 2): result.tags = try reader.packed()
            case (3, 0): result.type = Int(try reader.varint())
            case (4, 2): result.geometry = try reader.packed()
            default: try reader.skip(wire)
            }
        }
        return result
    }

    private static func value(_ bytes: ArraySlice<UInt8>) throws -> DecodedValue {
        var reader = ProtobufReader(bytes)
        guard let (field, wire) = try reader.tag() else { throw Malformed(description: "empty value") }
        switch (field, wire) {
        case (1, 2): return .string(String(decoding: try reader.lengthDelimited(), as: UTF8.self))
        case (3, 1): return .double(Double(bitPattern: try reader.fixed64()))
        case (5, 0): return .unsigned(try reader.varint())
        case (7, 0): return .bool(try reader.varint() != 0)
        default: throw Malformed(description: "value field \(field) wire \(wire)")
        }
    }

    private static func unzigzag(_ value: UInt64) -> Int {
        Int(Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1))
    }
}

enum DecodedValue: Equatable {
    case string(String)
    case double(Double)
    case unsigned(UInt64)
    case bool(Bool)

    var number: Double? {
        switch self {
        case .double(let value): value
        case .unsigned(let value): Double(value)
        default: nil
        }
    }
}

/// The protobuf wire format, as far as vector tiles use it.
struct ProtobufReader {
    var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.popFirst() {
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
            guard shift < 64 else { break }
        }
        throw DecodedTile.Malformed(description: "truncated varint")
    }

    mutating func tag() throws -> (Int, Int)? {
        guard !bytes.isEmpty else { return nil }
        let key = try varint()
        return (Int(key >> 3), Int(key & 7))
    }

    mutating func lengthDelimited() throws -> ArraySlice<UInt8> {
        let count = Int(try varint())
        guard bytes.count >= count else { throw DecodedTile.Malformed(description: "truncated bytes") }
        let value = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return value
    }

    mutating func fixed64() throws -> UInt64 {
        guard bytes.count >= 8 else { throw DecodedTile.Malformed(description: "truncated fixed64") }
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        bytes = bytes.dropFirst(8)
        return value
    }

    mutating func packed() throws -> [UInt64] {
        var inner = ProtobufReader(try lengthDelimited())
        var values: [UInt64] = []
        while !inner.bytes.isEmpty { values.append(try inner.varint()) }
        return values
    }

    mutating func skip(_ wire: Int) throws {
        switch wire {
        case 0: _ = try varint()
        case 1: _ = try fixed64()
        case 2: _ = try lengthDelimited()
        case 5:
            guard bytes.count >= 4 else { throw DecodedTile.Malformed(description: "truncated fixed32") }
            bytes = bytes.dropFirst(4)
        default: throw DecodedTile.Malformed(description: "wire type \(wire)")
        }
    }
}
