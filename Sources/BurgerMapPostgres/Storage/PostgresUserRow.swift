import BurgerMapCore
import PostgresNIO

/// How every PostgreSQL store reads a `User` out of a row that joins `users AS u`: the columns to
/// select and the decoding, in one place (reviews, comments, follows, blocks, reports, posts and
/// notifications all show their authors this way), with the same answers as the SQLite engine.
enum PostgresUserRow {
    /// The `users` columns that make a `User`, in the order `user(_:from:)` reads them.
    static let columns = "u.id, u.email, u.nickname, u.bio, u.avatar_photo_id, u.created_at"

    /// The `User` of a row that selects `columns` from column `first` on.
    static func user(_ row: PostgresRandomAccessRow, from first: Int) throws -> User {
        User(
            id: try row[first].decode(Int64.self), email: try row[first + 1].decode(String.self),
            nickname: try row[first + 2].decode(String.self), bio: try row[first + 3].decode(String?.self),
            avatarUrl: try row[first + 4].decode(Int64?.self).map(PhotoURL.thumbnail),
            createdAt: Timestamp(milliseconds: try row[first + 5].decode(Int64.self)))
    }
}
