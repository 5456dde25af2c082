/// Where `LoginThrottle` keeps its per-key records: in the database, so that every instance of
/// the service on one database counts the same failures and honours the same blocks.
///
/// A store knows nothing of limits or windows: `LoginThrottle` decides, and the store only
/// makes each key's read-modify-write atomic and forgets records once their `forgetAt` passes.
public protocol LoginThrottleStore: Sendable {
    /// The records of these keys; a key without a record (never failed, or forgotten) is absent.
    func throttleStates(_ keys: [String]) async throws -> [String: ThrottleKeyState]
    /// Reads a key's record (an empty one when it has none), runs `change` on it exactly once,
    /// and stores the result, atomically for that key: concurrent updates of one key, from any
    /// instance on the same database, apply one after the other, each to the other's result.
    /// Also deletes a bounded number of records whose `forgetAt` is not after `time`, so that
    /// keys nobody uses any more do not pile up. Answers what `change` answered.
    func updateThrottleKey<Outcome: Sendable>(
        _ key: String, at time: Timestamp, _ change: @Sendable (inout ThrottleKeyState) -> Outcome
    ) async throws -> Outcome
    /// Deletes a key's record, if it has one.
    func removeThrottleKey(_ key: String) async throws
}

/// One throttle key's record.
public struct ThrottleKeyState: Sendable, Equatable {
    /// The failures that count towards the next block, oldest first (`LoginThrottle` keeps at
    /// most the key's limit of them).
    public var failures: [Timestamp] = []
    /// Until when the key is blocked (a past time: not blocked).
    public var blockedUntil = Timestamp(milliseconds: 0)
    /// How many times the key's block has engaged (the next block doubles for each).
    public var rounds = 0
    /// The last failure recorded for the key.
    public var lastSeen = Timestamp(milliseconds: 0)
    /// From this time on the record says nothing that an absent one would not (no block, no
    /// failure in the window, rounds old enough to forget): the store may delete it.
    public var forgetAt = Timestamp(milliseconds: 0)

    public init(
        failures: [Timestamp] = [], blockedUntil: Timestamp = Timestamp(milliseconds: 0), rounds: Int = 0,
        lastSeen: Timestamp = Timestamp(milliseconds: 0), forgetAt: Timestamp = Timestamp(milliseconds: 0)
    ) {
        self.failures = failures
        self.blockedUntil = blockedUntil
        self.rounds = rounds
        self.lastSeen = lastSeen
        self.forgetAt = forgetAt
    }

    /// How many forgettable records one update deletes at most: more than an update adds (one),
    /// so the table shrinks back whenever the service is used, and few enough to keep a login fast.
    public static let sweepLimit = 16
}
