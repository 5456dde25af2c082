import BurgerMapCore
import GRDB

extension AppDatabase: ModerationStore {
    /// An account with its standing (see `AccountStore.authenticatedUser`).
    public func authenticatedUser(id: Int64) async throws -> (user: User, standing: AccountStanding)? {
        try await measured("authenticated_user") {
            try await read { db in
                try Row.fetchOne(
                    db, sql: "SELECT \(Self.userColumns), is_moderator, suspended_at FROM users WHERE id = ?",
                    arguments: [id]
                ).map { row in
                    (
                        Self.user(row),
                        AccountStanding(
                            isModerator: row["is_moderator"],
                            suspendedAt: (row["suspended_at"] as Int64?).map(Timestamp.init(milliseconds:)))
                    )
                }
            }
        }
    }

    /// Grants or revokes the moderator role (see `ModerationStore.setModerator`).
    public func setModerator(email: String, granted: Bool, at time: Timestamp = .now()) async throws
        -> ModerationOutcome
    {
        try await pool.write { db in
            guard
                let id = try Int64.fetchOne(
                    db, sql: "SELECT id FROM users WHERE email_key = ?", arguments: [AccountRules.key(email)])
            else { return .userMissing }
            try db.execute(sql: "UPDATE users SET is_moderator = ? WHERE id = ?", arguments: [granted, id])
            try self.apply(ModerationRules.moderatorRole(of: id, granted: granted), at: time, in: db)
            // No event, but a ring: the service's memory of signed-in users reads the role again.
            self.ringWhenCommitted(db)
            return .done
        }
    }

    /// Suspends or reinstates an account (see `ModerationStore.setSuspended`).
    public func setSuspended(
        _ userID: Int64, _ suspended: Bool, by moderator: Int64, reason: String?, at time: Timestamp = .now()
    ) async throws -> ModerationOutcome {
        try await pool.write { db in
            // The state before, for the event: reinstating someone not suspended changes nothing.
            guard
                let wasSuspended = try Bool.fetchOne(
                    db, sql: "SELECT suspended_at IS NOT NULL FROM users WHERE id = ?", arguments: [userID])
            else {
                return .userMissing
            }
            try db.execute(
                sql: "UPDATE users SET suspended_at = ? WHERE id = ?",
                arguments: [suspended ? time.milliseconds : nil, userID])
            let effects = ModerationRules.suspension(
                of: userID, suspended: suspended, wasSuspended: wasSuspended, by: moderator, reason: reason)
            try self.apply(effects, at: time, in: db)
            return .done
        }
    }

    /// A page of the audit log, newest first.
    public func auditLog(after: TimeKey?, limit: Int) async throws -> KeysetPage<AuditEntry> {
        try await pool.read { db in
            let query = KeysetOrder.newestFirst.query(
                "SELECT id, moderator_id, action, target_type, target_id, reason, created_at FROM moderation_log",
                where: "1", [], time: "created_at", id: "id", after: after, limit: limit)
            let rows = try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map { row in
                AuditEntry(
                    id: row["id"], moderatorID: row["moderator_id"], action: row["action"],
                    targetType: row["target_type"], targetID: row["target_id"], reason: row["reason"],
                    createdAt: Timestamp(milliseconds: row["created_at"]))
            }
            return KeysetPage(rows: rows, limit: limit, item: { $0 }, key: \.listKey)
        }
    }
}
