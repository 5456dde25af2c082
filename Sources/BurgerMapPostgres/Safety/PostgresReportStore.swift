import BurgerMapCore
import Logging
import PostgresNIO

/// Reports and hidden content in PostgreSQL, as on SQLite (`AppDatabase+Reports.swift`). Filing
/// locks the target's row first, so that reports arriving together count one another and the
/// one that reaches the threshold hides the content.
public struct PostgresReportStore: ReportStore {
    let pool: PostgresPool
    let logger: Logger
    /// Records the events of this store's writes, in their transactions.
    let events: PostgresEventStore

    static let columns = "id, reporter_id, review_id, comment_id, user_id, reason, text, created_at, resolution"

    static func report(_ row: PostgresRandomAccessRow, from first: Int = 0) throws -> Report {
        let target: ReportTarget =
            if let id = try row[first + 2].decode(Int64?.self) {
                .review(id)
            } else if let id = try row[first + 3]
                .decode(Int64?.self)
            {
                .comment(id)
            } else { .user(try row[first + 4].decode(Int64.self)) }
        return Report(
            id: try row[first].decode(Int64.self), reporterID: try row[first + 1].decode(Int64.self), target: target,
            reason: ReportReason(rawValue: try row[first + 5].decode(String.self)) ?? .other,
            text: try row[first + 6].decode(String?.self),
            createdAt: Timestamp(milliseconds: try row[first + 7].decode(Int64.self)),
            resolution: try row[first + 8].decode(String?.self).flatMap(ReportResolution.init(rawValue:)))
    }

    /// The report column and the table of a target.
    static func column(_ target: ReportTarget) -> (column: String, table: String) {
        switch target {
        case .review: ("review_id", "reviews")
        case .comment: ("comment_id", "comments")
        case .user: ("user_id", "users")
        }
    }

    private func first(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> Report? {
        for try await row in rows { return try Self.report(row.makeRandomAccess()) }
        return nil
    }

    /// Files a report (see `ReportStore.fileReport`).
    public func fileReport(
        _ target: ReportTarget, by reporter: Int64, reason: ReportReason, text: String?, hideThreshold: Int,
        at time: Timestamp
    ) async throws -> ReportFiling {
        let (column, table) = Self.column(target)
        let owner = target.kind == "user" ? "id" : "author_id"
        let hiddenColumn = target.kind == "user" ? "false" : "hidden_at IS NOT NULL"
        let parent = Self.parentColumn(target.kind)
        return try await events.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: owner), \(unescaped: hiddenColumn), \(unescaped: parent) FROM \(unescaped: table)
                WHERE id = \(target.id) FOR UPDATE
                """, logger: logger)
            var found: (owner: Int64, hidden: Bool, parent: Int64?)?
            for try await row in rows.decode((Int64, Bool, Int64?).self) { found = row }
            guard var found else { return .targetMissing }
            if found.owner == reporter { return .ownTarget }
            let open: PostgresQuery = """
                SELECT \(unescaped: Self.columns) FROM reports
                WHERE \(unescaped: column) = \(target.id) AND reporter_id = \(reporter) AND resolved_at IS NULL
                """
            // The target's row lock orders reports on it, so no second open report slips in.
            if let existing = try await first(connection.query(open, logger: logger)) {
                return .filed(existing, hidden: found.hidden)
            }
            let inserted = try await first(
                connection.query(
                    """
                    INSERT INTO reports (reporter_id, \(unescaped: column), reason, text, created_at)
                    VALUES (\(reporter), \(target.id), \(reason.rawValue), \(text), \(time.milliseconds))
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger))
            guard let report = inserted else { throw PostgresEngineError.server("INSERT INTO reports returned no row") }
            if ModerationRules.countsReports(target, alreadyHidden: found.hidden, threshold: hideThreshold) {
                var reporters = 0
                for try await count in try await connection.query(
                    """
                    SELECT count(*) FROM reports WHERE \(unescaped: column) = \(target.id) AND resolved_at IS NULL
                    """, logger: logger
                ).decode(Int.self) { reporters = count }
                if let effects = ModerationRules.autoHide(
                    target, openReports: reporters, threshold: hideThreshold, owner: found.owner, parent: found.parent)
                {
                    try await connection.query(
                        "UPDATE \(unescaped: table) SET hidden_at = \(time.milliseconds) WHERE id = \(target.id)",
                        logger: logger)
                    try await PostgresWriteEffects.apply(effects, at: time, on: connection, logger: logger)
                    found.hidden = true
                }
            }
            return .filed(report, hidden: found.hidden)
        }
    }

    /// A page of the open reports, oldest first, with their reporters and targets.
    public func openReports(after: TimeKey?, limit: Int) async throws -> KeysetPage<QueuedReport> {
        let (time, id) = PostgresKeyset.above(after)
        let rows = try await pool.query(
            """
            SELECT x.id, x.reporter_id, x.review_id, x.comment_id, x.user_id, x.reason, x.text, x.created_at,
                   x.resolution,
                   COALESCE(rv.author_id, c.author_id, x.user_id),
                   COALESCE(rv.text, c.text, tu.nickname),
                   CASE WHEN x.user_id IS NULL THEN COALESCE(rv.hidden_at, c.hidden_at) IS NOT NULL END,
                   CASE
                       WHEN x.review_id IS NOT NULL THEN
                           (SELECT count(*) FROM reports WHERE review_id = x.review_id AND resolved_at IS NULL)
                       WHEN x.comment_id IS NOT NULL THEN
                           (SELECT count(*) FROM reports WHERE comment_id = x.comment_id AND resolved_at IS NULL)
                       ELSE (SELECT count(*) FROM reports WHERE user_id = x.user_id AND resolved_at IS NULL)
                   END,
                   \(unescaped: PostgresUserRow.columns)
            FROM reports AS x JOIN users AS u ON u.id = x.reporter_id
                LEFT JOIN reviews AS rv ON rv.id = x.review_id
                LEFT JOIN comments AS c ON c.id = x.comment_id
                LEFT JOIN users AS tu ON tu.id = x.user_id
            WHERE x.resolved_at IS NULL AND (x.created_at, x.id) > (\(time), \(id))
            ORDER BY x.created_at, x.id LIMIT \(Int64(limit) + 1)
            """, logger: logger)
        var items: [QueuedReport] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            items.append(
                QueuedReport(
                    report: try Self.report(row), reporter: try PostgresUserRow.user(row, from: 13),
                    targetAuthorID: try row[9].decode(Int64.self), targetText: try row[10].decode(String.self),
                    targetHidden: try row[11].decode(Bool?.self), openReports: try row[12].decode(Int.self)))
        }
        return KeysetPage(rows: items, limit: limit, item: { $0 }, key: \.report.listKey)
    }

    /// Hides or restores a review or comment (see `ReportStore.setHidden`).
    public func setHidden(
        _ content: HideableContent, _ hidden: Bool, by moderator: Int64, reason: String?, at time: Timestamp
    ) async throws -> ContentDecision {
        let (column, table) = Self.column(content.target)
        let id = content.target.id
        let parent = Self.parentColumn(content.target.kind)
        let resolution = hidden ? ReportResolution.hidden : .restored
        return try await events.transaction(logger: logger) { connection in
            // The state before, for the event: hiding hidden content changes nothing.
            let updated = try await connection.query(
                """
                UPDATE \(unescaped: table) AS t
                SET hidden_at = CASE WHEN \(hidden) THEN COALESCE(t.hidden_at, \(time.milliseconds)) END
                FROM (SELECT hidden_at, author_id, \(unescaped: parent) AS parent FROM \(unescaped: table)
                      WHERE id = \(id) FOR UPDATE) AS before
                WHERE t.id = \(id) RETURNING before.hidden_at IS NOT NULL, before.author_id, before.parent
                """, logger: logger)
            var found: (wasHidden: Bool, owner: Int64, parent: Int64?)?
            for try await row in updated.decode((Bool, Int64, Int64?).self) { found = row }
            guard let found else { return .contentMissing }
            let closed = try await connection.query(
                """
                UPDATE reports SET resolved_at = \(time.milliseconds),
                    resolution = \(resolution.rawValue), resolved_by = \(moderator)
                WHERE \(unescaped: column) = \(id) AND resolved_at IS NULL RETURNING id, reporter_id
                """, logger: logger)
            var reports: [(report: Int64, reporter: Int64)] = []
            for try await (report, reporter) in closed.decode((Int64, Int64).self) {
                reports.append((report, reporter))
            }
            let effects = ModerationRules.moderatorDecision(
                content, hidden: hidden, wasHidden: found.wasHidden, by: moderator, reason: reason,
                owner: found.owner, parent: found.parent, closed: reports)
            try await PostgresWriteEffects.apply(effects, at: time, on: connection, logger: logger)
            return .done(closedReports: reports.count)
        }
    }

    /// Dismisses one report (see `ReportStore.dismissReport`).
    public func dismissReport(id: Int64, by moderator: Int64, reason: String?, at time: Timestamp) async throws
        -> Report?
    {
        try await events.transaction(logger: logger) { connection in
            guard
                let report = try await first(
                    connection.query(
                        "SELECT \(unescaped: Self.columns) FROM reports WHERE id = \(id) FOR UPDATE", logger: logger))
            else { return nil }
            guard report.resolution == nil else { return report }
            let dismissed = try await first(
                connection.query(
                    """
                    UPDATE reports SET resolved_at = \(time.milliseconds), resolution = 'dismissed', resolved_by = \(moderator)
                    WHERE id = \(id) RETURNING \(unescaped: Self.columns)
                    """, logger: logger))
            try await PostgresWriteEffects.apply(
                ModerationRules.dismissal(of: report, by: moderator, reason: reason), at: time, on: connection,
                logger: logger)
            return dismissed
        }
    }

    /// The column that names what a review or comment belongs to (its place, its review).
    static func parentColumn(_ kind: String) -> String {
        switch kind {
        case "review": "place_id"
        case "comment": "review_id"
        default: "NULL::bigint"
        }
    }
}
