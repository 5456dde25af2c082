import BurgerMapCore
import GRDB

extension AppDatabase {
    /// Carries out the effects a core rule decided (`WriteEffect`), in order, in the write's
    /// transaction: SQLite's statement for each kind.
    func apply(_ effects: [WriteEffect], at time: Timestamp, in db: Database) throws {
        for effect in effects {
            switch effect {
            case .record(let event):
                try recordEvent(event, at: time, in: db)
            case .audit(let record):
                try db.execute(
                    sql: """
                        INSERT INTO moderation_log (moderator_id, action, target_type, target_id, reason, created_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        record.moderator, record.action.rawValue, record.targetType, record.targetID, record.reason,
                        time.milliseconds,
                    ])
            case .revokeLogins(let user):
                try db.execute(
                    sql: "UPDATE login_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
                    arguments: [time.milliseconds, user])
            case .closeReports(let user, let resolution, let moderator):
                try db.execute(
                    sql: """
                        UPDATE reports SET resolved_at = ?, resolution = ?, resolved_by = ?
                        WHERE user_id = ? AND resolved_at IS NULL
                        """, arguments: [time.milliseconds, resolution.rawValue, moderator, user])
            }
        }
    }
}
