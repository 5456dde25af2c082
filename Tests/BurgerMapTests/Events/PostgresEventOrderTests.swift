import Foundation
import PostgresNIO
import Testing

@testable import BurgerMapCore
@testable import BurgerMapPostgres

@Suite("Events on PostgreSQL: ids taken before commit never make a reader skip one", .timeLimit(.minutes(10)))
struct PostgresEventOrderTests {
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
        try await connection.query("BEGIN")
        try await connection.query("UPDATE users SET updated_at = updated_at WHERE false")
        try await PostgresEventStore.record(
            DomainEvent(.profileChanged, actor: subject, subject: subject), at: .now(), on: connection,
            logger: .init(label: "test"))
    }

    @Test(
        "a reader stops at the hole of a running transaction, and goes on once it commits or rolls back",
        arguments: [true, false])
    func holes(commits: Bool) async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        let events = postgres.events
        let start = try await events.lastEventID()
        try await postgres.client.withConnection { first in
            try await postgres.client.withConnection { second in
                // The first takes the lower id and stays open; the second commits after it.
                try await Self.open(first, subject: 1)
                try await Self.open(second, subject: 2)
                try await second.query("COMMIT")
                // The reader sees only the committed event's id above a hole: it must not pass it.
                #expect(try await events.events(after: start, limit: 10).isEmpty)
                #expect(try await events.events(after: start, limit: 10).isEmpty)
                try await first.query(commits ? "COMMIT" : "ROLLBACK")
                let seen = await Self.subscribe(events, after: start, count: commits ? 2 : 1)
                #expect(seen.map(\.event.subject) == (commits ? [1, 2] : [2]))
                #expect(seen.map(\.id) == (commits ? [start + 1, start + 2] : [start + 2]))
            }
        }
    }

    @Test("a hole left by a rollback with nothing running is passed at once")
    func rolledBack() async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        let start = try await postgres.events.lastEventID()
        try await postgres.client.withConnection { connection in
            try await Self.open(connection, subject: 1)
            try await connection.query("ROLLBACK")
            try await Self.open(connection, subject: 2)
            try await connection.query("COMMIT")
        }
        #expect(await Self.subscribe(postgres.events, after: start, count: 1).map(\.event.subject) == [2])
    }
}
