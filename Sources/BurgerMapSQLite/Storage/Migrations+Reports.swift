import GRDB

extension AppDatabase {
    /// v13-reports: hidden reviews and comments, and reports. Each report names exactly one target by a
    /// foreign key (so that it goes with the target); one open report per reporter and
    /// target; the partial indexes on hidden rows are what list filters read.
    static func reports(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE reviews ADD COLUMN hidden_at INTEGER;
                ALTER TABLE comments ADD COLUMN hidden_at INTEGER;
                CREATE INDEX reviews_hidden ON reviews(id) WHERE hidden_at IS NOT NULL;
                CREATE INDEX comments_hidden ON comments(id) WHERE hidden_at IS NOT NULL;
                CREATE TABLE reports (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    reporter_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    review_id INTEGER REFERENCES reviews(id) ON DELETE CASCADE,
                    comment_id INTEGER REFERENCES comments(id) ON DELETE CASCADE,
                    user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
                    reason TEXT NOT NULL
                        CHECK (reason IN ('spam', 'harassment', 'hate', 'sexual', 'violence', 'misinformation', 'other')),
                    text TEXT CHECK (text IS NULL OR length(CAST(text AS BLOB)) <= 64000),
                    created_at INTEGER NOT NULL,
                    resolved_at INTEGER,
                    resolution TEXT CHECK (resolution IN ('hidden', 'restored', 'dismissed', 'suspended')),
                    resolved_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    CHECK ((review_id IS NOT NULL) + (comment_id IS NOT NULL) + (user_id IS NOT NULL) = 1),
                    CHECK ((resolved_at IS NULL) = (resolution IS NULL))
                );
                CREATE UNIQUE INDEX reports_open_review ON reports(review_id, reporter_id) WHERE resolved_at IS NULL;
                CREATE UNIQUE INDEX reports_open_comment ON reports(comment_id, reporter_id) WHERE resolved_at IS NULL;
                CREATE UNIQUE INDEX reports_open_user ON reports(user_id, reporter_id) WHERE resolved_at IS NULL;
                CREATE INDEX reports_open_by_time ON reports(created_at, id) WHERE resolved_at IS NULL;
                CREATE INDEX reports_by_reporter ON reports(reporter_id);
                CREATE INDEX reports_by_review ON reports(review_id) WHERE review_id IS NOT NULL;
                CREATE INDEX reports_by_comment ON reports(comment_id) WHERE comment_id IS NOT NULL;
                CREATE INDEX reports_by_user ON reports(user_id) WHERE user_id IS NOT NULL;
                """)
    }
}
