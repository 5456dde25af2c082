import BurgerMapCore
import GRDB

extension AppDatabase: ReportStore {
    /// The columns `report(_:)` reads.
    static let reportColumns = "id, reporter_id, review_id, comment_id, user_id, reason, text, created_at, resolution"

    /// The report column and the table of a target (`users` for users).
    static func reportColumn(_ target: ReportTarget) -> (column: String, table: String) {
        switch target {
        case .review: ("review_id", "reviews")
        case .comment: ("comment_id", "comments")
        case .user: ("user_id", "users")
        }
    }

    static func report(_ row: Row) -> Report {
        let target: ReportTarget =
            if let id = row["review_id"] as Int64? { .review(id) } else if let id = row["comment_id"] as Int64? {
                .comment(id)
            } else { .user(row["user_id"]) }
        return Report(
            id: row["id"], reporterID: row["reporter_id"], target: target,
            reason: ReportReason(rawValue: row["reason"]) ?? .other, text: row["text"],
            createdAt: Timestamp(milliseconds: row["created_at"]),
            resolution: (row["resolution"] as String?).flatMap(ReportResolution.init(rawValue:)))
    }

    /// Files a report (see `ReportStore.fileReport`).
    public func fileReport(
        _ target: ReportTarget, by reporter: Int64, reason: ReportReason, text: String?, hideThreshold: Int,
        at time: Timestamp = .now()
    ) async throws -> ReportFiling {
        try await measured("file_report") {
            try await pool.write { db in
                let (column, table) = Self.reportColumn(target)
                let owner = target.kind == "user" ? "id" : "author_id"
                let hiddenColumn = target.kind == "user" ? "0" : "hidden_at IS NOT NULL"
                let parent = Self.parentColumn(target.kind)
                guard
                    let found = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT \(owner) AS owner, \(hiddenColumn) AS hidden, \(parent) AS parent
                            FROM \(table) WHERE id = ?
                            """,
                        arguments: [target.id])
                else { return .targetMissing }
                if found["owner"] as Int64 == reporter { return .ownTarget }
                var hidden: Bool = found["hidden"]
                let open =
                    "SELECT \(Self.reportColumns) FROM reports WHERE \(column) = ? AND reporter_id = ? AND resolved_at IS NULL"
                if let existing = try Row.fetchOne(db, sql: open, arguments: [target.id, reporter]) {
                    return .filed(Self.report(existing), hidden: hidden)
                }
                try db.execute(
                    sql:
                        "INSERT INTO reports (reporter_id, \(column), reason, text, created_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [reporter, target.id, reason.rawValue, text, time.milliseconds])
                let report = Self.report(
                    try Row.fetchOne(
                        db, sql: "SELECT \(Self.reportColumns) FROM reports WHERE id = ?",
                        arguments: [db.lastInsertedRowID])!)
                if target.kind != "user", !hidden, hideThreshold > 0 {
                    let reporters =
                        try Int.fetchOne(
                            db, sql: "SELECT count(*) FROM reports WHERE \(column) = ? AND resolved_at IS NULL",
                            arguments: [target.id]) ?? 0
                    if reporters >= hideThreshold {
                        try db.execute(
                            sql: "UPDATE \(table) SET hidden_at = ? WHERE id = ?",
                            arguments: [time.milliseconds, target.id])
                        try Self.audit(
                            db, moderator: nil, "auto_hide", target.kind, target.id, "\(reporters) reports", time)
                        // Hidden by reports alone: no actor.
                        try self.recordEvent(
                            DomainEvent.visibility(
                                of: target, hidden: true, actor: nil, owner: found["owner"], parent: found["parent"]),
                            at: time, in: db)
                        hidden = true
                    }
                }
                return .filed(report, hidden: hidden)
            }
        }
    }

    /// A page of the open reports, oldest first, with their reporters and targets.
    public func openReports(after: TimeKey?, limit: Int) async throws -> KeysetPage<QueuedReport> {
        try await pool.read { db in
            let query = KeysetOrder.oldestFirst.query(
                """
                SELECT \(Self.qualified(Self.reportColumns, by: "x")),
                       COALESCE(rv.author_id, c.author_id, x.user_id) AS target_author,
                       COALESCE(rv.text, c.text, tu.nickname) AS target_text,
                       CASE WHEN x.user_id IS NULL THEN COALESCE(rv.hidden_at, c.hidden_at) IS NOT NULL END AS target_hidden,
                       CASE
                           WHEN x.review_id IS NOT NULL THEN
                               (SELECT count(*) FROM reports WHERE review_id = x.review_id AND resolved_at IS NULL)
                           WHEN x.comment_id IS NOT NULL THEN
                               (SELECT count(*) FROM reports WHERE comment_id = x.comment_id AND resolved_at IS NULL)
                           ELSE (SELECT count(*) FROM reports WHERE user_id = x.user_id AND resolved_at IS NULL)
                       END AS open_reports,
                       \(Self.qualified(Self.userColumns, by: "u"))
                FROM reports AS x JOIN users AS u ON u.id = x.reporter_id
                    LEFT JOIN reviews AS rv ON rv.id = x.review_id
                    LEFT JOIN comments AS c ON c.id = x.comment_id
                    LEFT JOIN users AS tu ON tu.id = x.user_id
                """,
                where: "x.resolved_at IS NULL", [], time: "x.created_at", id: "x.id", after: after, limit: limit)
            let rows = try Row.fetchAll(
                db, sql: query.sql, arguments: query.arguments,
                adapter: ScopeAdapter(["reporter": SuffixRowAdapter(fromIndex: 13)]))
            let items = rows.map { row in
                QueuedReport(
                    report: Self.report(row), reporter: Self.user(row.scopes["reporter"]!),
                    targetAuthorID: row["target_author"], targetText: row["target_text"],
                    targetHidden: row["target_hidden"], openReports: row["open_reports"])
            }
            return KeysetPage(rows: items, limit: limit, item: { $0 }, key: \.report.listKey)
        }
    }

    /// Hides or restores a review or comment (see `ReportStore.setHidden`).
    public func setHidden(
        _ content: HideableContent, _ hidden: Bool, by moderator: Int64, reason: String?, at time: Timestamp = .now()
    ) async throws -> ContentDecision {
        try await pool.write { db in
            let (column, table) = Self.reportColumn(content.target)
            let kind = content.target.kind
            let id = content.target.id
            let resolution = hidden ? ReportResolution.hidden : .restored
            // The state before, for the event: hiding hidden content changes nothing.
            guard
                let before = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT hidden_at IS NOT NULL AS hidden, author_id, \(Self.parentColumn(kind)) AS parent
                        FROM \(table) WHERE id = ?
                        """, arguments: [id])
            else {
                return .contentMissing
            }
            try db.execute(
                sql: "UPDATE \(table) SET hidden_at = CASE WHEN ? THEN COALESCE(hidden_at, ?) END WHERE id = ?",
                arguments: [hidden, time.milliseconds, id])
            var changes: [DomainEvent] = []
            if before["hidden"] as Bool != hidden {
                changes.append(
                    DomainEvent.visibility(
                        of: content.target, hidden: hidden, actor: moderator, owner: before["author_id"],
                        parent: before["parent"]))
            }
            let closed = try Row.fetchAll(
                db,
                sql: """
                    UPDATE reports SET resolved_at = ?, resolution = ?, resolved_by = ?
                    WHERE \(column) = ? AND resolved_at IS NULL RETURNING id, reporter_id
                    """,
                arguments: [time.milliseconds, resolution.rawValue, moderator, id]
            ).map { (report: $0[0] as Int64, reporter: $0[1] as Int64) }.sorted { $0.report < $1.report }
            for closed in closed {
                changes.append(
                    DomainEvent.decision(report: closed.report, resolution, by: moderator, reporter: closed.reporter))
            }
            try Self.audit(db, moderator: moderator, hidden ? "hide" : "restore", kind, id, reason, time)
            for event in changes { try self.recordEvent(event, at: time, in: db) }
            return .done(closedReports: closed.count)
        }
    }

    /// Dismisses one report (see `ReportStore.dismissReport`).
    public func dismissReport(id: Int64, by moderator: Int64, reason: String?, at time: Timestamp = .now())
        async throws -> Report?
    {
        try await pool.write { db in
            let select = "SELECT \(Self.reportColumns) FROM reports WHERE id = ?"
            guard let row = try Row.fetchOne(db, sql: select, arguments: [id]) else { return nil }
            let report = Self.report(row)
            guard report.resolution == nil else { return report }
            try db.execute(
                sql: "UPDATE reports SET resolved_at = ?, resolution = 'dismissed', resolved_by = ? WHERE id = ?",
                arguments: [time.milliseconds, moderator, id])
            try Self.audit(db, moderator: moderator, "dismiss_report", "report", id, reason, time)
            try self.recordEvent(
                DomainEvent.decision(report: id, .dismissed, by: moderator, reporter: report.reporterID), at: time,
                in: db)
            return Self.report(try Row.fetchOne(db, sql: select, arguments: [id])!)
        }
    }

    /// The column that names what a review or comment belongs to (its place, its review).
    static func parentColumn(_ kind: String) -> String {
        switch kind {
        case "review": "place_id"
        case "comment": "review_id"
        default: "NULL"
        }
    }

    /// Closes a user's open reports as `suspended`, in the caller's transaction.
    static func closeReports(onUser userID: Int64, by moderator: Int64, at time: Timestamp, _ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE reports SET resolved_at = ?, resolution = 'suspended', resolved_by = ?
                WHERE user_id = ? AND resolved_at IS NULL
                """, arguments: [time.milliseconds, moderator, userID])
    }
}
