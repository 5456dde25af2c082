import Foundation

extension OSMCollector {
    /// A place at `point`, or a skip when the point is not a position on Earth (a hostile or
    /// broken file can say anything).
    func place(_ id: String, _ point: OSMPoint, _ tags: [String: String]) -> OSMItem {
        if point.lat.isNaN || point.lon.isNaN {
            return .skip(id: id, reason: "\(id): it has no position")
        }
        guard (-90...90).contains(point.lat), (-180...180).contains(point.lon) else {
            return .skip(id: id, reason: "\(id): position (\(point.lat), \(point.lon)) is not on Earth")
        }
        return .place(OSMPlace(id: id, lat: point.lat, lng: point.lon, tags: tags))
    }

    /// After the last pass: the kept ways, then the kept relations, in file order, as places or
    /// skips.
    func finish() {
        for way in ways {
            let id = "way/\(way.id)"
            switch positions(way.refs) {
            case .failure(let missing):
                output.append(.skip(id: id, reason: "\(id): node \(missing.id) is missing from the extract"))
            case .success(let ring):
                output.append(place(id, OSMGeometry.position(outer: ring), way.tags))
            }
        }
        for relation in relations {
            output.append(item(for: relation))
        }
    }

    private struct MissingNode: Error {
        var id: Int64
    }

    private func positions(_ refs: [Int64]) -> Result<[OSMPoint], MissingNode> {
        var points: [OSMPoint] = []
        points.reserveCapacity(refs.count)
        for ref in refs {
            guard let point = nodes.position(of: ref) else { return .failure(MissingNode(id: ref)) }
            points.append(point)
        }
        return .success(points)
    }

    private func memberWays(_ ids: [Int64]) -> (ways: [(id: Int64, refs: [Int64])], missing: Int64?) {
        var ways: [(id: Int64, refs: [Int64])] = []
        for id in ids {
            guard let index = memberWayIndex(id), let refs = memberWayRefs[index] else { return (ways, id) }
            ways.append((id, refs))
        }
        return (ways, nil)
    }

    /// A multipolygon's place: the largest outer ring (by area) gives the position, its holes
    /// (inner rings that lie in it) keep the point-inside rule off a courtyard. Inner rings that
    /// cannot be built are left out: the outer ring alone still places the pin.
    private func item(for relation: Relation) -> OSMItem {
        let id = "relation/\(relation.id)"
        guard !relation.outer.isEmpty else { return .skip(id: id, reason: "\(id): it has no outer member ways") }
        let (outerWays, missingWay) = memberWays(relation.outer)
        if let missingWay {
            return .skip(id: id, reason: "\(id): member way \(missingWay) is missing from the extract")
        }
        let outerRings: [[Int64]]
        switch OSMGeometry.rings(of: outerWays, role: "outer") {
        case .failure(let problem): return .skip(id: id, reason: "\(id): \(problem.description)")
        case .success(let rings): outerRings = rings
        }
        var largest: (ring: [OSMPoint], area: Double)?
        for refs in outerRings {
            switch positions(refs) {
            case .failure(let missing):
                return .skip(id: id, reason: "\(id): node \(missing.id) of its outer ways is missing from the extract")
            case .success(let ring):
                let area = OSMGeometry.area(ring)
                if largest == nil || area > largest!.area { largest = (ring, area) }
            }
        }
        guard let outer = largest?.ring else { return .skip(id: id, reason: "\(id): it has no outer member ways") }
        var holes: [[OSMPoint]] = []
        let (innerWays, missingInner) = memberWays(relation.inner)
        if missingInner == nil, case .success(let rings) = OSMGeometry.rings(of: innerWays, role: "inner") {
            for refs in rings {
                guard case .success(let ring) = positions(refs), let first = ring.first,
                    OSMGeometry.inside(first, outer, reference: outer[0].lon)
                else { continue }
                holes.append(ring)
            }
        }
        return place(id, OSMGeometry.position(outer: outer, holes: holes), relation.tags)
    }
}
