import BurgerMapCore
import Logging
import PostgresNIO

/// Carries out the effects a core rule decided (`WriteEffect`) on PostgreSQL.
enum PostgresWriteEffects {
    /// The effects, in order, on the write's transaction: PostgreSQL's statement for each kind.
    static func apply(
        _ effects: [WriteEffect], at time: Timestamp, on connection: PostgresConnection, logger: Logger
    ) async throws {
        for effect in effects {
            switch effect {
            case .record(let event):
                try await PostgresEventStore.record(event, at: time, on: connection, logger: logger)
            case .audit(let record):
                try await connection.query(
                    """
                    INSERT INTO moderation_log (moderator_id, action, target_type, target_id, reason, created_at)
                    VALUES (\(record.moderator), \(record.action.rawValue), \(record.targetType), \(record.targetID),
                        \(record.reason), \(time.milliseconds))
                    """, logger: logger)
            case .revokeLogins(let user):
                try await connection.query(
                    """
                    UPDATE login_sessions SET revoked_at = \(time.milliseconds)
                    WHERE user_id = \(user) AND revoked_at IS NULL
                    """, logger: logger)
            case .closeReports(let user, let resolution, let moderator):
                try await connection.query(
                    """
                    UPDATE reports SET resolved_at = \(time.milliseconds), resolution = \(resolution.rawValue),
                        resolved_by = \(moderator)
                    WHERE user_id = \(user) AND resolved_at IS NULL
                    """, logger: logger)
            }
        }
    }
}
