import BurgerMapCore
import GRDB

extension AppDatabase {
    /// The schema's history. A migration that has shipped never changes: new needs get new
    /// migrations appended below.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-places") { db in
            try db.execute(sql: "SELECT InitSpatialMetadata('WGS84_ONLY')")
            try db.execute(
                sql: """
                    CREATE TABLE places (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 300),
                        lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                        lng REAL NOT NULL CHECK (lng BETWEEN -180 AND 180),
                        address TEXT,
                        city TEXT,
                        province TEXT,
                        postal_code TEXT,
                        country TEXT,
                        phone TEXT,
                        category TEXT,
                        website TEXT,
                        source TEXT,
                        external_id TEXT,
                        review_count INTEGER NOT NULL DEFAULT 0 CHECK (review_count >= 0),
                        rating_sum INTEGER NOT NULL DEFAULT 0 CHECK (rating_sum >= 0),
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    CREATE UNIQUE INDEX places_by_source_external_id ON places(source, external_id)
                        WHERE source IS NOT NULL AND external_id IS NOT NULL;
                    CREATE INDEX places_by_review_count ON places(review_count DESC, id);
                    """)
            try checkSpatiaLite(db, "SELECT AddGeometryColumn('places', 'geom', 4326, 'POINT', 'XY', 1)")
            try checkSpatiaLite(db, "SELECT CreateSpatialIndex('places', 'geom')")
        }
        migrator.registerMigration("v2-accounts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
                        email_key TEXT NOT NULL UNIQUE,
                        password_hash TEXT NOT NULL,
                        nickname TEXT NOT NULL CHECK (length(nickname) BETWEEN 2 AND 200),
                        nickname_key TEXT NOT NULL UNIQUE,
                        bio TEXT CHECK (bio IS NULL OR length(bio) <= 500),
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    -- One login: the chain of refresh tokens that rotation hands out from it.
                    CREATE TABLE login_sessions (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        revoked_at INTEGER
                    );
                    CREATE INDEX login_sessions_by_user ON login_sessions(user_id);
                    CREATE TABLE refresh_tokens (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        session_id INTEGER NOT NULL REFERENCES login_sessions(id) ON DELETE CASCADE,
                        token_hash BLOB NOT NULL UNIQUE CHECK (length(token_hash) = 32),
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        used_at INTEGER
                    );
                    CREATE INDEX refresh_tokens_by_session ON refresh_tokens(session_id);
                    ALTER TABLE places ADD COLUMN created_by INTEGER REFERENCES users(id) ON DELETE SET NULL;
                    CREATE INDEX places_by_creator ON places(created_by) WHERE created_by IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v3-reviews") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reviews (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        place_id INTEGER NOT NULL REFERENCES places(id) ON DELETE CASCADE,
                        author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
                        text TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
                        like_count INTEGER NOT NULL DEFAULT 0 CHECK (like_count >= 0),
                        bookmark_count INTEGER NOT NULL DEFAULT 0 CHECK (bookmark_count >= 0),
                        comment_count INTEGER NOT NULL DEFAULT 0 CHECK (comment_count >= 0),
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    CREATE INDEX reviews_by_time ON reviews(created_at, id);
                    CREATE INDEX reviews_by_place ON reviews(place_id, created_at, id);
                    CREATE INDEX reviews_by_author ON reviews(author_id, created_at, id);
                    -- Review photos (review_id set) and avatars (review_id NULL). AUTOINCREMENT: an id,
                    -- and so a photo URL, is never given to another image.
                    CREATE TABLE photos (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        review_id INTEGER REFERENCES reviews(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL CHECK (position BETWEEN 0 AND 4),
                        width INTEGER NOT NULL CHECK (width BETWEEN 1 AND 2048),
                        height INTEGER NOT NULL CHECK (height BETWEEN 1 AND 2048),
                        created_at INTEGER NOT NULL,
                        UNIQUE (review_id, position)
                    );
                    CREATE INDEX photos_by_owner ON photos(owner_id);
                    ALTER TABLE users ADD COLUMN avatar_photo_id INTEGER REFERENCES photos(id) ON DELETE SET NULL;
                    ALTER TABLE places ADD COLUMN cover_photo_id INTEGER REFERENCES photos(id) ON DELETE SET NULL;
                    -- The first answer to a review creation sent with an Idempotency-Key, replayed
                    -- for 24 hours.
                    CREATE TABLE idempotent_requests (
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
                        status INTEGER NOT NULL,
                        body BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, key)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4-social") { db in
            try db.execute(
                sql: """
                    -- Likes, bookmarks and follows are pairs: the primary key makes a second PUT of the
                    -- same pair a no-op, however many arrive at once. The counts they feed are kept by
                    -- the triggers below, in the statement that adds or removes the pair (cascades too).
                    CREATE TABLE review_likes (
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, review_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX review_likes_by_user_time ON review_likes(user_id, created_at, review_id);
                    CREATE INDEX review_likes_by_review ON review_likes(review_id);
                    CREATE TRIGGER review_likes_count_insert AFTER INSERT ON review_likes BEGIN
                        UPDATE reviews SET like_count = like_count + 1 WHERE id = NEW.review_id;
                    END;
                    CREATE TRIGGER review_likes_count_delete AFTER DELETE ON review_likes BEGIN
                        UPDATE reviews SET like_count = like_count - 1 WHERE id = OLD.review_id;
                    END;
                    CREATE TABLE review_bookmarks (
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, review_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX review_bookmarks_by_user_time ON review_bookmarks(user_id, created_at, review_id);
                    CREATE INDEX review_bookmarks_by_review ON review_bookmarks(review_id);
                    CREATE TRIGGER review_bookmarks_count_insert AFTER INSERT ON review_bookmarks BEGIN
                        UPDATE reviews SET bookmark_count = bookmark_count + 1 WHERE id = NEW.review_id;
                    END;
                    CREATE TRIGGER review_bookmarks_count_delete AFTER DELETE ON review_bookmarks BEGIN
                        UPDATE reviews SET bookmark_count = bookmark_count - 1 WHERE id = OLD.review_id;
                    END;
                    CREATE TABLE comments (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
                        author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        -- The service allows 1…1000 characters as people count them (grapheme
                        -- clusters, up to 64 bytes each); SQLite counts code points, so the
                        -- backstop bounds bytes.
                        text TEXT NOT NULL CHECK (length(text) >= 1 AND length(CAST(text AS BLOB)) <= 64000),
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    CREATE INDEX comments_by_review ON comments(review_id, created_at, id);
                    CREATE INDEX comments_by_author ON comments(author_id);
                    CREATE TRIGGER comments_count_insert AFTER INSERT ON comments BEGIN
                        UPDATE reviews SET comment_count = comment_count + 1 WHERE id = NEW.review_id;
                    END;
                    CREATE TRIGGER comments_count_delete AFTER DELETE ON comments BEGIN
                        UPDATE reviews SET comment_count = comment_count - 1 WHERE id = OLD.review_id;
                    END;
                    CREATE TABLE follows (
                        follower_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        followee_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (follower_id, followee_id),
                        CHECK (follower_id <> followee_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX follows_by_follower_time ON follows(follower_id, created_at, followee_id);
                    CREATE INDEX follows_by_followee_time ON follows(followee_id, created_at, follower_id);
                    ALTER TABLE users ADD COLUMN follower_count INTEGER NOT NULL DEFAULT 0 CHECK (follower_count >= 0);
                    ALTER TABLE users ADD COLUMN following_count INTEGER NOT NULL DEFAULT 0 CHECK (following_count >= 0);
                    CREATE TRIGGER follows_count_insert AFTER INSERT ON follows BEGIN
                        UPDATE users SET follower_count = follower_count + 1 WHERE id = NEW.followee_id;
                        UPDATE users SET following_count = following_count + 1 WHERE id = NEW.follower_id;
                    END;
                    CREATE TRIGGER follows_count_delete AFTER DELETE ON follows BEGIN
                        UPDATE users SET follower_count = follower_count - 1 WHERE id = OLD.followee_id;
                        UPDATE users SET following_count = following_count - 1 WHERE id = OLD.follower_id;
                    END;
                    -- The feed walks all reviews newest first and keeps those of followed authors:
                    -- with the author in the index that walk never reads a table row.
                    CREATE INDEX reviews_by_time_with_author ON reviews(created_at, id, author_id);
                    DROP INDEX reviews_by_time;
                    """)
        }
        migrator.registerMigration("v5-places-keep-reviews") { db in
            // Reviews keep their place: the API answers `409` and `remove-source` skips such
            // places, and the schema refuses the delete whatever asks for it.
            try db.execute(
                sql: """
                    CREATE TRIGGER places_keep_reviewed BEFORE DELETE ON places
                    WHEN EXISTS (SELECT 1 FROM reviews WHERE place_id = OLD.id)
                    BEGIN SELECT RAISE(ABORT, 'a place with reviews cannot be deleted'); END;
                    CREATE INDEX places_by_source ON places(source) WHERE source IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v6-login-throttle") { db in
            // LoginThrottle's records, one per key ("client:…", "account:<email hash>|client:…"),
            // in the database so that a restart forgets no block. `failures` lists the counted
            // failures' times in milliseconds, comma-separated (at most the key's limit of them);
            // records whose `forget_at` has passed are deleted a few at a time on each write.
            try db.execute(
                sql: """
                    CREATE TABLE login_throttle (
                        key TEXT NOT NULL PRIMARY KEY,
                        failures TEXT NOT NULL DEFAULT '',
                        blocked_until INTEGER NOT NULL DEFAULT 0,
                        rounds INTEGER NOT NULL DEFAULT 0 CHECK (rounds >= 0),
                        last_seen INTEGER NOT NULL DEFAULT 0,
                        forget_at INTEGER NOT NULL DEFAULT 0
                    ) WITHOUT ROWID;
                    CREATE INDEX login_throttle_by_forget_at ON login_throttle(forget_at);
                    """)
        }
        migrator.registerMigration("v7-place-search") { db in try placeSearch(db) }
        migrator.registerMigration("v8-place-cells") { db in try placeCells(db) }
        migrator.registerMigration("v9-review-titles-pending-photos") { db in
            // Reviews gain an optional title (characters as people count them are checked by
            // the service; the backstop bounds bytes, 200 × 64). Photos uploaded before their
            // review (the LookForRealBurger app's order) wait in `pending_photos` until a review
            // takes them or a day passes; a photo is pending exactly while its row is here.
            try db.execute(
                sql: """
                    ALTER TABLE reviews ADD COLUMN title TEXT
                        CHECK (title IS NULL OR (length(title) >= 1 AND length(CAST(title AS BLOB)) <= 12800));
                    CREATE TABLE pending_photos (
                        photo_id INTEGER PRIMARY KEY REFERENCES photos(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL
                    );
                    CREATE INDEX pending_photos_by_time ON pending_photos(created_at);
                    """)
        }
        migrator.registerMigration("v10-write-counts") { db in
            // WriteLimiter's counts: one row per (user, kind of write, window), deleted a few
            // at a time once a day old.
            try db.execute(
                sql: """
                    CREATE TABLE write_counts (
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        action TEXT NOT NULL,
                        window_start INTEGER NOT NULL,
                        count INTEGER NOT NULL CHECK (count >= 1),
                        PRIMARY KEY (user_id, action, window_start)
                    );
                    CREATE INDEX write_counts_by_window ON write_counts(window_start);
                    """)
        }
        migrator.registerMigration("v11-moderation") { db in
            // Moderators (granted from the command line), suspended accounts, and the audit log of
            // every moderation action (an operator's grant has no moderator).
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN is_moderator INTEGER NOT NULL DEFAULT 0 CHECK (is_moderator IN (0, 1));
                    ALTER TABLE users ADD COLUMN suspended_at INTEGER;
                    CREATE TABLE moderation_log (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        moderator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                        action TEXT NOT NULL,
                        target_type TEXT NOT NULL,
                        target_id INTEGER NOT NULL,
                        reason TEXT CHECK (reason IS NULL OR length(CAST(reason AS BLOB)) <= 64000),
                        created_at INTEGER NOT NULL
                    );
                    CREATE INDEX moderation_log_by_time ON moderation_log(created_at, id);
                    """)
        }
        migrator.registerMigration("v12-blocks") { db in
            // A block hides two users from each other both ways; the second index finds who
            // blocks a viewer, the third pages a blocker's list.
            try db.execute(
                sql: """
                    CREATE TABLE blocks (
                        blocker_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        blocked_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (blocker_id, blocked_id),
                        CHECK (blocker_id <> blocked_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX blocks_by_blocked ON blocks(blocked_id, blocker_id);
                    CREATE INDEX blocks_by_blocker_time ON blocks(blocker_id, created_at, blocked_id);
                    """)
        }
        migrator.registerMigration("v13-reports") { db in try reports(db) }
        // AUTOINCREMENT: an id is never given twice, even after pruning removed the newest.
        migrator.registerMigration("v14-events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        time INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        actor INTEGER,
                        subject INTEGER NOT NULL,
                        payload TEXT NOT NULL
                    );
                    """)
        }
        // The review a key made, written with it: the answer is kept beside it after the commit
        // (status 0 until then).
        migrator.registerMigration("v15-idempotency-claims") { db in
            try db.execute(sql: "ALTER TABLE idempotent_requests ADD COLUMN review_id INTEGER")
        }
        migrator.registerMigration("v16-notifications") { db in try notifications(db) }
        // Photos in an object store: the random key a photo's objects were written under before
        // its row (NULL for a photo of the folder, whose files take its id), and the queue of
        // objects to remove, filled by every deletion of a photo row, cascades included, in the
        // deleting transaction (`PhotoObjectKey`, `PhotoStore.queuedPhotoObjectDeletions`).
        migrator.registerMigration("v17-photo-objects") { db in
            try db.execute(
                sql: """
                    ALTER TABLE photos ADD COLUMN object_key TEXT;
                    CREATE UNIQUE INDEX photos_by_object_key ON photos(object_key) WHERE object_key IS NOT NULL;
                    CREATE TABLE photo_object_deletions (
                        object_key TEXT PRIMARY KEY,
                        queued_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX photo_object_deletions_by_time ON photo_object_deletions(queued_at);
                    CREATE TRIGGER photos_queue_object_deletion AFTER DELETE ON photos
                    BEGIN
                        INSERT OR IGNORE INTO photo_object_deletions (object_key, queued_at)
                        VALUES (COALESCE(old.object_key, CAST(old.id AS TEXT)),
                                CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                    END;
                    """)
        }
        migrator.registerMigration("v18-place-details") { db in try placeDetails(db) }
        migrator.registerMigration("v19-search-pairs") { db in try searchPairs(db) }
        migrator.registerMigration("v20-search-columns") { db in try searchColumns(db) }
        migrator.registerMigration("v21-search-sides") { db in try searchSides(db) }
        // What request a key was used for (`IdempotencyKey.fingerprint`); NULL for earlier claims.
        migrator.registerMigration("v22-idempotency-fingerprints") { db in
            try db.execute(sql: "ALTER TABLE idempotent_requests ADD COLUMN fingerprint TEXT")
        }
        return migrator
    }

    /// SpatiaLite's metadata functions return 0 on failure instead of raising an error.
    private static func checkSpatiaLite(_ db: Database, _ sql: String) throws {
        guard try Int.fetchOne(db, sql: sql) == 1 else {
            throw StorageError.spatialiteCallFailed(sql)
        }
    }
}
