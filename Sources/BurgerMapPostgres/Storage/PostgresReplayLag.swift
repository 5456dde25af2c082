/// A replica's lag from the monitor's own samples: how long the oldest WAL it has received but
/// not replayed may have waited.
///
/// The age of the last transaction the replica replayed is no lag on its own: after an idle
/// spell, the first write on the primary is received a few milliseconds before it is replayed,
/// and a check that lands in between would read the whole idle spell as lag (a 5.5 s pause,
/// then one write, took a caught-up replica out of use for a second in an end-to-end check).
/// So the lag is the least of two upper bounds:
/// - the time since the latest check that found no more received than is replayed now: all
///   that is unreplayed arrived after that check;
/// - the age of the last transaction replayed: every later commit is unreplayed.
/// Both are 0 when the replica has replayed everything it received.
struct PostgresReplayLag: Sendable {
    /// The latest check that found no more received than is replayed, then those since
    /// (oldest first): at most `capacity` of them.
    private var received: [(at: Double, position: Int64)] = []
    static let capacity = 64

    /// The lag (seconds) at `now` (seconds on the monitor's clock) for a replica that has
    /// received WAL up to `received` and replayed up to `replayed` (byte positions), whose last
    /// replayed transaction is `lastCommitAge` seconds old; `nil` when unknown.
    mutating func update(at now: Double, received position: Int64?, replayed: Int64?, lastCommitAge: Double?)
        -> Double?
    {
        guard let position, let replayed else { return lastCommitAge }
        received.append((now, position))
        if let caughtUp = received.lastIndex(where: { $0.position <= replayed }) {
            received.removeFirst(caughtUp)
        }
        if received.count > Self.capacity {
            // The oldest checks after the first go: the first is the one that bounds the lag
            // now, and a later catch-up that finds an older check than it could have only
            // loosens the bound.
            received.removeSubrange(1...(received.count - Self.capacity))
        }
        if replayed >= position { return 0 }
        let sinceCaughtUp = received[0].position <= replayed ? now - received[0].at : nil
        return [sinceCaughtUp, lastCommitAge.map { max(0, $0) }].compactMap { $0 }.min()
    }
}
