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
                if ModerationRules.countsReports(target, alreadyHidden: hidden, threshold: hideThreshold) {
                    let reporters =
                        try Int.fetchOne(
                            db, sql: "SELECT count(*) FROM reports WHERE \(column) = ? AND resolved_at IS NULL",
                            arguments: [target.id]) ?? 0
                    if let effects = ModerationRules.autoHide(
                        target, openReports: reporters, threshold: hideThreshold, owner: found["owner"],
                        parent: found["parent"])
                    {
                        try db.execute(
                            sql: "UPDATE \(table) SET hidden_at = ? WHERE id = ?",
                            arguments: [time.milliseconds, target.id])
                        try self.apply(effects, at: time, in: db)
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
            let closed = try Row.fetchAll(
                db,
                sql: """
                    UPDATE reports SET resolved_at = ?, resolution = ?, resolved_by = ?
                    WHERE \(column) = ? AND resolved_at IS NULL RETURNING id, reporter_id
                    """,
                arguments: [time.milliseconds, (hidden ? ReportResolution.hidden : .restored).rawValue, moderator, id]
            ).map { (report: $0[0] as Int64, reporter: $0[1] as Int64) }
            let effects = ModerationRules.moderatorDecision(
                content, hidden: hidden, wasHidden: before["hidden"], by: moderator, reason: reason,
                owner: before["author_id"], parent: before["parent"], closed: closed)
            try self.apply(effects, at: time, in: db)
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
            try self.apply(ModerationRules.dismissal(of: report, by: moderator, reason: reason), at: time, in: db)
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
}
