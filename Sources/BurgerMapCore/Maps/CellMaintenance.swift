/// Keeps `place_cells` exact when one place is added, taken out or gains or loses its last
/// review, inside the transaction that changes the place. Every engine runs the same plan:
///
/// 1. after writing the place, read the rows of `cellsToRead`;
/// 2. read the places whose keys fall in `ranges(given:)`;
/// 3. write `update(rows:members:)` (rows to store, rows to delete).
///
/// The plan is pure so that one rule serves both engines, the synchronous SQLite one and the
/// asynchronous PostgreSQL one. It keeps the invariant that a cell has a row exactly when it
/// holds at least `PlaceCells.threshold` places, so the rows of a place's cells are those of
/// its coarsest levels, and a cell without a row costs at most `threshold - 1` index entries
/// to count. Counts and sums change by one place; bounds can only be recomputed, from the
/// cell's four children (rows or their few places), and only when the place lay on them.
public struct CellMaintenance: Sendable {
    /// What happened to the place.
    public enum Change: Sendable {
        /// A new place, or a place moved here.
        case added
        /// A deleted place, or a place moved away.
        case removed
        /// The place gained its first review (`true`) or lost its last (`false`).
        case reviewed(Bool)
    }

    public let change: Change
    /// The place as it is (added, reviewed) or as it was (removed).
    public let member: CellMember

    public init(_ change: Change, _ member: CellMember) {
        self.change = change
        self.member = member
    }

    /// The plans that take the rows from a place as it was (`nil`: not there) to the place as
    /// it is (`nil`: gone), in order: a move is a removal, then an addition; a change of review
    /// count matters only when the place gains its first review or loses its last.
    public static func plans(from before: CellMember?, to after: CellMember?) -> [CellMaintenance] {
        switch (before, after) {
        case (nil, let after?):
            return [CellMaintenance(.added, after)]
        case (let before?, nil):
            return [CellMaintenance(.removed, before)]
        case (let before?, let after?):
            if before.lat != after.lat || before.lng != after.lng {
                return [CellMaintenance(.removed, before), CellMaintenance(.added, after)]
            }
            return before.reviewed != after.reviewed ? [CellMaintenance(.reviewed(after.reviewed), after)] : []
        case (nil, nil):
            return []
        }
    }

    /// The place's cell at each level with rows, coarsest first.
    package var chain: [CellID] {
        (PlaceCells.minLevel...PlaceCells.maxLevel).map {
            CellID(level: $0, cell: PlaceCells.cell(of: member.key, at: $0))
        }
    }

    /// Step 1: the rows to read (the place's cells, and for a removal their children too).
    public var cellsToRead: [CellID] {
        switch change {
        case .added, .reviewed(true): chain
        case .removed, .reviewed(false):
            chain + chain.filter { $0.level < PlaceCells.maxLevel }.flatMap(\.children)
        }
    }

    /// Step 2: the key ranges whose places the update needs.
    public func ranges(given rows: [CellRow]) -> [ClosedRange<Int64>] {
        let stored = Dictionary(rows.map { (CellID(level: $0.level, cell: $0.cell), $0) }) { first, _ in first }
        switch change {
        case .added:
            // The coarsest cell without a row may have just reached the threshold.
            return chain.first { stored[$0] == nil }.map { [$0.range] } ?? []
        case .reviewed(true):
            return []
        case .removed, .reviewed(false):
            let staying = survivors(stored)
            return recomputed(stored).flatMap { id in
                id.level == PlaceCells.maxLevel
                    ? [id.range] : id.children.filter { staying[$0] == nil }.map(\.range)
            }
        }
    }

    /// The rows to store and the cells whose rows go.
    public struct Update: Sendable, Equatable {
        public var store: [CellRow] = []
        public var delete: [CellID] = []
    }

    /// Step 3: the new rows, from the rows and places read in steps 1 and 2.
    public func update(rows: [CellRow], members: [CellMember]) -> Update {
        let stored = Dictionary(rows.map { (CellID(level: $0.level, cell: $0.cell), $0) }) { first, _ in first }
        var update = Update()
        switch change {
        case .added:
            for id in chain {
                if var row = stored[id] {
                    row.all.add(lat: member.lat, lng: member.lng)
                    if member.reviewed { row.reviewed.add(lat: member.lat, lng: member.lng) }
                    update.store.append(row)
                    continue
                }
                // The places read are those of the coarsest cell without a row; finer cells
                // hold a subset of them.
                let inside = members.filter { id.range.contains($0.key) }
                guard inside.count >= PlaceCells.threshold else { break }
                update.store.append(Self.row(id, from: inside))
            }
        case .reviewed(true):
            for id in chain {
                guard var row = stored[id] else { break }
                row.reviewed.add(lat: member.lat, lng: member.lng)
                update.store.append(row)
            }
        case .removed, .reviewed(false):
            let recompute = Set(recomputed(stored))
            var staying = survivors(stored)
            update.delete = chain.filter { stored[$0] != nil && staying[$0] == nil }
            // Finest first, so that a parent merges its children's new summaries.
            for id in chain.reversed() {
                guard var row = staying[id] else { continue }
                if recompute.contains(id) {
                    row = recomputedRow(id, stored: staying, members: members)
                } else {
                    if isRemoval { row.all.remove(lat: member.lat, lng: member.lng) }
                    if leavesReviewed { row.reviewed.remove(lat: member.lat, lng: member.lng) }
                }
                staying[id] = row
                update.store.append(row)
            }
        }
        return update
    }

    /// The stored rows that keep a row after a removal (a cell that falls below the threshold
    /// loses its row).
    private func survivors(_ stored: [CellID: CellRow]) -> [CellID: CellRow] {
        guard isRemoval else { return stored }
        return stored.filter { id, row in !chain.contains(id) || row.all.count - 1 >= PlaceCells.threshold }
    }

    /// Whether the place leaves the reviewed summaries.
    private var leavesReviewed: Bool {
        switch change {
        case .removed: member.reviewed
        case .reviewed(false): true
        default: false
        }
    }

    private var isRemoval: Bool {
        if case .removed = change { return true }
        return false
    }

    /// The rows that stay and whose bounds the place touched (their bounds are recomputed).
    private func recomputed(_ stored: [CellID: CellRow]) -> [CellID] {
        chain.filter { id in
            guard let row = stored[id] else { return false }
            if isRemoval {
                guard row.all.count - 1 >= PlaceCells.threshold else { return false }
                return row.all.touchesBounds(lat: member.lat, lng: member.lng)
                    || (member.reviewed && row.reviewed.touchesBounds(lat: member.lat, lng: member.lng))
            }
            return leavesReviewed && row.reviewed.touchesBounds(lat: member.lat, lng: member.lng)
        }
    }

    /// A row summed anew from its four children: their rows (the place's own child already
    /// updated), or their places.
    private func recomputedRow(_ id: CellID, stored: [CellID: CellRow], members: [CellMember]) -> CellRow {
        if id.level == PlaceCells.maxLevel {
            return Self.row(id, from: members.filter { id.range.contains($0.key) })
        }
        var row = CellRow(level: id.level, cell: id.cell, all: .empty, reviewed: .empty)
        for child in id.children {
            if let childRow = stored[child] {
                row.all.merge(childRow.all)
                row.reviewed.merge(childRow.reviewed)
            } else {
                let places = Self.row(child, from: members.filter { child.range.contains($0.key) })
                row.all.merge(places.all)
                row.reviewed.merge(places.reviewed)
            }
        }
        return row
    }

    /// The row of a cell summed from its places.
    package static func row(_ id: CellID, from members: some Sequence<CellMember>) -> CellRow {
        var row = CellRow(level: id.level, cell: id.cell, all: .empty, reviewed: .empty)
        for member in members {
            row.all.add(lat: member.lat, lng: member.lng)
            if member.reviewed { row.reviewed.add(lat: member.lat, lng: member.lng) }
        }
        return row
    }
}
