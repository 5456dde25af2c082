import Foundation
import Logging
import PostgresNIO
import Testing

@testable import BurgerMapCore
@testable import BurgerMapPostgres

@Suite("Events on PostgreSQL: ids taken before commit never make a reader skip one", .timeLimit(.minutes(10)))
struct PostgresEventOrderTests {
    static let logger = Logger(label: "burgermap-tests.events")

    /// The first `count` events after `id`, as a subscriber gets them.
    static func subscribe(_ events: PostgresEventStore, after id: Int64, count: Int) async -> [RecordedEvent] {
        var seen = 0
        return await TestEnvironment.subscribe(events, after: id) { _ in
            seen += 1
            return seen == count
        }
    }

    /// Begins a transaction on `connection` that records one event and stays open.
    static func open(_ connection: PostgresConnection, subject: Int64) async throws {
        try await connection.query("BEGIN", logger: Self.logger)
        try await connection.query("UPDATE users SET updated_at = updated_at WHERE false", logger: Self.logger)
        try await PostgresEventStore.record(
            DomainEvent(.profileChanged, actor: subject, subject: subject), at: .now(), on: connection,
            logger: Self.logger)
    }

    @Test(
        "a reader stops at the hole of a running transaction, and goes on once it commits or rolls back",
        arguments: [true, false])
    func holes(commits: Bool) async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        let events = postgres.events
        let start = try await events.lastEventID()
        try await postgres.pool.withConnection { first in
            try await postgres.pool.withConnection { second in
                // The first takes the lower id and stays open; the second commits after it.
                try await Self.open(first, subject: 1)
                try await Self.open(second, subject: 2)
                try await second.query("COMMIT", logger: Self.logger)
                // The reader sees only the committed event's id above a hole: it must not pass it.
                #expect(try await events.events(after: start, limit: 10).isEmpty)
                #expect(try await events.events(after: start, limit: 10).isEmpty)
                try await first.query(commits ? "COMMIT" : "ROLLBACK", logger: Self.logger)
                let seen = await Self.subscribe(events, after: start, count: commits ? 2 : 1)
                #expect(seen.map(\.event.subject) == (commits ? [1, 2] : [2]))
                #expect(seen.map(\.id) == (commits ? [start + 1, start + 2] : [start + 2]))
            }
        }
    }

    @Test("a hole is not passed by a read whose snapshot is older than the holders the hole was judged by")
    func olderSnapshot() async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        let events = postgres.events
        let start = try await events.lastEventID()
        let statement = PostgresEventStore.readStatement(after: start, limit: 10)
        try await postgres.pool.withConnection { first in
            try await postgres.pool.withConnection { second in
                try await postgres.pool.withConnection { older in
                    try await postgres.pool.withConnection { newer in
                        try await Self.open(first, subject: 1)
                        try await Self.open(second, subject: 2)
                        try await second.query("COMMIT", logger: Self.logger)
                        // Two readers' snapshots while the first runs (REPEATABLE READ keeps
                        // each for its transaction); the older reader's ticket comes first.
                        let olderStarted = events.holes.ticket()
                        try await older.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: Self.logger)
                        try await older.query("SELECT 1", logger: Self.logger)
                        let newerStarted = events.holes.ticket()
                        try await newer.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: Self.logger)
                        try await newer.query("SELECT 1", logger: Self.logger)
                        try await first.query("COMMIT", logger: Self.logger)
                        // The newer reader meets the hole after the first committed: the first no
                        // longer holds the writers' lock, so it is not among the hole's holders.
                        let newerRead = try await events.judge(
                            newer.query(statement, logger: Self.logger), after: start, started: newerStarted)
                        #expect(newerRead.events.isEmpty && newerRead.newHole)
                        // The older reader's answer comes after that, yet its snapshot is from
                        // before: the first runs in it, and its event is not there to be read.
                        let olderRead = try await events.judge(
                            older.query(statement, logger: Self.logger), after: start, started: olderStarted)
                        #expect(olderRead.events.isEmpty)
                        try await older.query("COMMIT", logger: Self.logger)
                        try await newer.query("COMMIT", logger: Self.logger)
                    }
                }
            }
        }
        let seen = await Self.subscribe(events, after: start, count: 2)
        #expect(seen.map(\.event.subject) == [1, 2])
    }

    @Test("a hole left by a rollback with nothing running is passed at once")
    func rolledBack() async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        let start = try await postgres.events.lastEventID()
        try await postgres.pool.withConnection { connection in
            try await Self.open(connection, subject: 1)
            try await connection.query("ROLLBACK", logger: Self.logger)
            try await Self.open(connection, subject: 2)
            try await connection.query("COMMIT", logger: Self.logger)
        }
        #expect(await Self.subscribe(postgres.events, after: start, count: 1).map(\.event.subject) == [2])
    }
}
