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
            try await Self.audit(
                connection, logger, moderator: nil, granted ? "grant_moderator" : "revoke_moderator", "user", id, nil,
                time)
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
            if wasSuspended != suspended {
                try await PostgresEventStore.record(
                    DomainEvent(suspended ? .accountSuspended : .accountReinstated, actor: moderator, subject: userID),
                    at: time, on: connection, logger: logger)
            }
            if suspended {
                try await connection.query(
                    """
                    UPDATE login_sessions SET revoked_at = \(time.milliseconds)
                    WHERE user_id = \(userID) AND revoked_at IS NULL
                    """, logger: logger)
                // The user's open reports are decided.
                try await connection.query(
                    """
                    UPDATE reports SET resolved_at = \(time.milliseconds), resolution = 'suspended', resolved_by = \(moderator)
                    WHERE user_id = \(userID) AND resolved_at IS NULL
                    """, logger: logger)
            }
            try await Self.audit(
                connection, logger, moderator: moderator, suspended ? "suspend" : "unsuspend", "user", userID, reason,
                time)
            return .done
        }
    }

    /// A page of the audit log, newest first.
    public func auditLog(after: TimeKey?, limit: Int) async throws -> KeysetPage<AuditEntry> {
        let (time, id) = PostgresReviewReads.below(after)
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

    /// Writes one audit entry, in the caller's transaction (every moderation change and report
    /// decision, as SQLite's `AppDatabase.audit`).
    static func audit(
        _ connection: PostgresConnection, _ logger: Logger, moderator: Int64?, _ action: String,
        _ targetType: String, _ targetID: Int64, _ reason: String?, _ time: Timestamp
    ) async throws {
        try await connection.query(
            """
            INSERT INTO moderation_log (moderator_id, action, target_type, target_id, reason, created_at)
            VALUES (\(moderator), \(action), \(targetType), \(targetID), \(reason), \(time.milliseconds))
            """, logger: logger)
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
