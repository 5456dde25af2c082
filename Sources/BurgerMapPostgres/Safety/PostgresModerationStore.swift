import BurgerMapCore
import Logging
import PostgresNIO

/// Moderator roles, suspensions and the audit log in PostgreSQL, as on SQLite
/// (`AppDatabase+Moderation.swift`): each change and its audit entry in one transaction.
public struct PostgresModerationStore: ModerationStore {
    let pool: PostgresPool
    let logger: Logger
    /// Records the events of this store's writes, in their transactions.
    let events: PostgresEventStore

    /// Grants or revokes the moderator role (see `ModerationStore.setModerator`).
    public func setModerator(email: String, granted: Bool, at time: Timestamp) async throws -> ModerationOutcome {
        // No event, but a ring when it commits (`events.transaction`): the service's memory of
        // signed-in users reads the role again.
        try await events.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                UPDATE users SET is_moderator = \(granted) WHERE email_key = \(AccountRules.key(email)) RETURNING id
                """, logger: logger)
            var id: Int64?
            for try await found in rows.decode(Int64.self) { id = found }
            guard let id else { return .userMissing }
            try await PostgresWriteEffects.apply(
                ModerationRules.moderatorRole(of: id, granted: granted), at: time, on: connection, logger: logger)
            return .done
        }
    }

    /// Suspends or reinstates an account (see `ModerationStore.setSuspended`).
    public func setSuspended(
        _ userID: Int64, _ suspended: Bool, by moderator: Int64, reason: String?, at time: Timestamp
    ) async throws -> ModerationOutcome {
        try await events.transaction(logger: logger) { connection in
            // The state before, for the event: reinstating someone not suspended changes nothing.
            let rows = try await connection.query(
                """
                UPDATE users AS u SET suspended_at = \(suspended ? time.milliseconds : nil)
                FROM (SELECT suspended_at FROM users WHERE id = \(userID) FOR NO KEY UPDATE) AS before
                WHERE u.id = \(userID) RETURNING before.suspended_at IS NOT NULL
                """, logger: logger)
            var wasSuspended: Bool?
            for try await value in rows.decode(Bool.self) { wasSuspended = value }
            guard let wasSuspended else { return .userMissing }
            let effects = ModerationRules.suspension(
                of: userID, suspended: suspended, wasSuspended: wasSuspended, by: moderator, reason: reason)
            try await PostgresWriteEffects.apply(effects, at: time, on: connection, logger: logger)
            return .done
        }
    }

    /// A page of the audit log, newest first.
    public func auditLog(after: TimeKey?, limit: Int) async throws -> KeysetPage<AuditEntry> {
        let (time, id) = PostgresKeyset.below(after)
        let rows = try await pool.query(
            """
            SELECT id, moderator_id, action, target_type, target_id, reason, created_at FROM moderation_log
            WHERE (created_at, id) < (\(time), \(id)) ORDER BY created_at DESC, id DESC LIMIT \(Int64(limit) + 1)
            """, logger: logger)
        var entries: [AuditEntry] = []
        for try await (entryID, moderator, action, targetType, targetID, reason, createdAt) in rows.decode(
            (Int64, Int64?, String, String, Int64, String?, Int64).self)
        {
            entries.append(
                AuditEntry(
                    id: entryID, moderatorID: moderator, action: action, targetType: targetType, targetID: targetID,
                    reason: reason, createdAt: Timestamp(milliseconds: createdAt)))
        }
        return KeysetPage(rows: entries, limit: limit, item: { $0 }, key: \.listKey)
    }
}

extension PostgresAccountStore {
    /// An account with its standing (see `AccountStore.authenticatedUser`).
    public func authenticatedUser(id: Int64) async throws -> (user: User, standing: AccountStanding)? {
        try await pool.withConnection { connection in
            var found: (user: User, standing: AccountStanding)?
            try await connection.forEachRow(
                Self.authenticatedUserQuery(id: id), preparedAs: AuthenticatedUserText.self, logger: logger
            ) { row in
                let row = row.makeRandomAccess()
                found = (
                    try Self.user(row),
                    AccountStanding(
                        isModerator: try row[6].decode(Bool.self),
                        suspendedAt: try row[7].decode(Int64?.self).map(Timestamp.init(milliseconds:)))
                )
            }
            return found
        }
    }

    static func authenticatedUserQuery(id: Int64) -> PostgresQuery {
        "SELECT \(unescaped: userColumns), is_moderator, suspended_at FROM users WHERE id = \(id)"
    }

    /// The signed-in user's row, which every authenticated request reads, prepared.
    enum AuthenticatedUserText: PreparedText {
        static let name = "burgermap_authenticated_user"
        static let text = authenticatedUserQuery(id: 0)
    }
}
