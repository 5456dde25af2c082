import Foundation

extension PBFBlockDecoder {
    /// A dense node group in the node pass, in two sweeps: ids (and, when the block's strings hold
    /// `amenity`, the keys_vals beside them) find the nodes that matter; then latitudes and
    /// longitudes are decoded only as far as the last of those, and not at all in the many
    /// blocks where no node matters. Tags become strings only for nodes whose `amenity` index is
    /// an accepted value.
    func denseNodes(_ range: Range<Int>) throws(PBFCorruption) {
        var reader = block.reader(range)
        var ids = 0..<0
        var lats = 0..<0
        var lons = 0..<0
        var keysValues = 0..<0
        while let (number, wireType) = try reader.field() {
            switch number {
            case 1, 8, 9, 10:
                try WireReader.expect(wireType, 2, field: "DenseNodes.id, lat, lon or keys_vals")
                let field = try reader.lengthDelimited()
                switch number {
                case 1: ids = field
                case 8: lats = field
                case 9: lons = field
                default: keysValues = field
                }
            default: try reader.skip(wireType)
            }
        }
        let needed = collector.neededNodeIDs
        if !keysValues.isEmpty { try readStrings() }
        let checkTags = !keysValues.isEmpty && amenityIndex != Self.absent
        guard checkTags || !needed.isEmpty else { return }

        // Sweep 1: node indexes of needed ids (with their table index) and of tag candidates
        // (with their keys_vals bytes).
        var hits: [(node: Int, index: Int)] = []
        var candidates: [(node: Int, id: Int64, tags: Range<Int>)] = []
        var idReader = block.reader(ids)
        var tagReader = block.reader(keysValues)
        let amenity = amenityIndex
        let accepted = valueIndices
        var cursor = self.cursor
        var id: Int64 = 0
        var node = 0
        while !idReader.atEnd {
            id &+= try idReader.signed()
            if !needed.isEmpty, let index = OSMNodeTable.index(of: id, in: needed, cursor: &cursor) {
                hits.append((node, index))
            }
            if checkTags && !tagReader.atEnd {
                let start = tagReader.position
                var match = false
                while !tagReader.atEnd {
                    let key = try tagReader.varint()
                    if key == 0 { break }
                    guard !tagReader.atEnd else {
                        throw PBFCorruption(what: "dense node \(id) has a key without value")
                    }
                    let value = try tagReader.varint()
                    if key == amenity && accepted.contains(value) { match = true }
                }
                if match { candidates.append((node, id, start..<tagReader.position)) }
            }
            node += 1
        }
        self.cursor = cursor
        let last = max(hits.last?.node ?? -1, candidates.last?.node ?? -1)
        guard last >= 0 else { return }

        // Sweep 2: positions up to the last node that matters.
        var latReader = block.reader(lats)
        var lonReader = block.reader(lons)
        var lat: Int64 = 0
        var lon: Int64 = 0
        var nextHit = 0
        var nextCandidate = 0
        for node in 0...last {
            guard !latReader.atEnd, !lonReader.atEnd else {
                throw PBFCorruption(what: "dense nodes have more ids than latitudes or longitudes")
            }
            lat &+= try latReader.signed()
            lon &+= try lonReader.signed()
            if nextHit < hits.count && hits[nextHit].node == node {
                collector.setPosition(
                    hits[nextHit].index, lat: degrees(lat, offset: latOffset), lon: degrees(lon, offset: lonOffset))
                nextHit += 1
            }
            if nextCandidate < candidates.count && candidates[nextCandidate].node == node {
                let candidate = candidates[nextCandidate]
                collector.node(
                    id: candidate.id, lat: degrees(lat, offset: latOffset), lon: degrees(lon, offset: lonOffset),
                    tags: try denseTags(candidate.tags))
                nextCandidate += 1
            }
        }
    }

    /// One dense node's `(key, value)*` string indexes as tags.
    private func denseTags(_ range: Range<Int>) throws(PBFCorruption) -> [String: String] {
        var reader = block.reader(range)
        var tags: [String: String] = [:]
        while !reader.atEnd {
            let key = try reader.varint()
            if key == 0 { break }
            tags[try string(key)] = try string(reader.varint())
        }
        return tags
    }

    /// A node written without dense coding (`osmium … pbf_dense_nodes=false`), in the node pass.
    func node(_ range: Range<Int>) throws(PBFCorruption) {
        var reader = block.reader(range)
        var id: Int64 = 0
        var lat: Int64 = 0
        var lon: Int64 = 0
        var keys = 0..<0
        var values = 0..<0
        while let (number, wireType) = try reader.field() {
            switch number {
            case 1, 8, 9:
                try WireReader.expect(wireType, 0, field: "Node.id, lat or lon")
                let value = try reader.signed()
                if number == 1 { id = value } else if number == 8 { lat = value } else { lon = value }
            case 2, 3:
                try WireReader.expect(wireType, 2, field: "Node.keys or vals")
                if number == 2 { keys = try reader.lengthDelimited() } else { values = try reader.lengthDelimited() }
            default: try reader.skip(wireType)
            }
        }
        let latitude = degrees(lat, offset: latOffset)
        let longitude = degrees(lon, offset: lonOffset)
        let needed = collector.neededNodeIDs
        if !needed.isEmpty, let index = OSMNodeTable.index(of: id, in: needed, cursor: &cursor) {
            collector.setPosition(index, lat: latitude, lon: longitude)
        }
        if !keys.isEmpty, try mayMatch(keys: keys, values: values) {
            collector.node(id: id, lat: latitude, lon: longitude, tags: try tags(keys: keys, values: values))
        }
    }
}
