import Testing

@testable import BurgerMapPostgres

/// A replica's lag from the monitor's checks (`PostgresReplayLag`): times are the checks' seconds,
/// positions WAL bytes.
@Suite("Replay lag")
struct ReplayLagTests {
    @Test("after an idle spell, a write received but not replayed yet is no older than the last check")
    func idleSpellThenOneWrite() {
        var lag = PostgresReplayLag()
        for second in 0...9 {
            #expect(lag.update(at: Double(second), received: 100, replayed: 100, lastCommitAge: Double(second)) == 0)
        }
        // The last transaction replayed is 10 s old, but the check a second ago found the
        // replica caught up: what it has not replayed came since.
        #expect(lag.update(at: 10, received: 200, replayed: 100, lastCommitAge: 10) == 1)
        #expect(lag.update(at: 10.5, received: 200, replayed: 200, lastCommitAge: 0.4) == 0)
    }

    @Test("a replica that stops replaying lags by the time since it was last caught up, or less")
    func stalledReplay() {
        var lag = PostgresReplayLag()
        #expect(lag.update(at: 0, received: 200, replayed: 200, lastCommitAge: 30) == 0)
        for second in 1...8 {
            #expect(
                lag.update(at: Double(second), received: 200 + Int64(second) * 10, replayed: 200, lastCommitAge: 30)
                    == Double(second))
        }
        // A younger last commit than the last catch-up bounds the lag tighter.
        #expect(lag.update(at: 9, received: 300, replayed: 200, lastCommitAge: 2.5) == 2.5)
        // Replay passes what the check at 4 s found received: the lag counts from there.
        #expect(lag.update(at: 10, received: 310, replayed: 245, lastCommitAge: 30) == 6)
    }

    @Test("without a check that found it caught up, the age of the last commit is the lag; without either, unknown")
    func noCatchUpSeen() {
        var lag = PostgresReplayLag()
        #expect(lag.update(at: 0, received: 500, replayed: 100, lastCommitAge: 7) == 7)
        #expect(lag.update(at: 1, received: 600, replayed: 100, lastCommitAge: nil) == nil)
        var noStream = PostgresReplayLag()
        #expect(noStream.update(at: 0, received: nil, replayed: 100, lastCommitAge: 3) == 3)
        #expect(noStream.update(at: 1, received: 90, replayed: 100, lastCommitAge: 3) == 0, "a receiver that restarted")
    }

    @Test("a long stall keeps a bounded history and the bound stays an upper one")
    func boundedHistory() {
        var lag = PostgresReplayLag()
        #expect(lag.update(at: 0, received: 0, replayed: 0, lastCommitAge: nil) == 0)
        for second in 1...100 {
            #expect(
                lag.update(at: Double(second), received: Int64(second), replayed: 0, lastCommitAge: nil)
                    == Double(second))
        }
        // Kept: the check at 0 s and the latest 63 (38 s to 100 s). Replay past what the one at
        // 20 s had received: that one is gone, so the one at 0 s bounds the lag, from above.
        #expect(lag.update(at: 101, received: 101, replayed: 20, lastCommitAge: nil) == 101)
        // Past what the one at 50 s had received: that one is kept.
        #expect(lag.update(at: 102, received: 102, replayed: 50, lastCommitAge: nil) == 52)
    }
}
