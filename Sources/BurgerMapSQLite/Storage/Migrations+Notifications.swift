import GRDB

extension AppDatabase {
    /// v16-notifications: notification groups and their entries, the worker's progress, users'
    /// settings, stream tickets, push subscriptions and the deliveries waiting for them.
    ///
    /// A group is open (takes new entries) while it is unread and not empty: the partial unique
    /// index keeps one open group per key. Emptied groups stay (count 0) until no stream can
    /// resume before their change. Entries name their actor by id without a foreign key: the
    /// worker takes a deleted account's entries out itself, so that counts stay exact.
    static func notifications(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE notification_groups (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    type TEXT NOT NULL,
                    group_key TEXT NOT NULL,
                    latest_event_id INTEGER NOT NULL,
                    changed_event_id INTEGER NOT NULL,
                    count INTEGER NOT NULL CHECK (count >= 0),
                    latest_at INTEGER NOT NULL,
                    review_id INTEGER,
                    comment_id INTEGER,
                    decision TEXT,
                    read INTEGER NOT NULL DEFAULT 0
                );
                CREATE UNIQUE INDEX notification_groups_open ON notification_groups(user_id, group_key)
                    WHERE read = 0 AND count > 0;
                CREATE INDEX notification_groups_list ON notification_groups(user_id, latest_event_id)
                    WHERE count > 0;
                CREATE INDEX notification_groups_unread ON notification_groups(user_id, latest_event_id)
                    WHERE count > 0 AND read = 0;
                CREATE INDEX notification_groups_changes ON notification_groups(user_id, changed_event_id);
                CREATE INDEX notification_groups_by_review ON notification_groups(review_id)
                    WHERE review_id IS NOT NULL;
                CREATE INDEX notification_groups_emptied ON notification_groups(changed_event_id) WHERE count = 0;
                CREATE TABLE notification_entries (
                    group_id INTEGER NOT NULL REFERENCES notification_groups(id) ON DELETE CASCADE,
                    actor_id INTEGER NOT NULL,
                    object_id INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    PRIMARY KEY (group_id, actor_id, object_id)
                ) WITHOUT ROWID;
                CREATE INDEX notification_entries_by_actor ON notification_entries(actor_id);
                CREATE INDEX notification_entries_by_object ON notification_entries(object_id);
                CREATE INDEX notification_entries_latest ON notification_entries(group_id, seq);
                CREATE TABLE notification_progress (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    last_event_id INTEGER NOT NULL
                );
                INSERT INTO notification_progress (id, last_event_id) VALUES (1, (SELECT coalesce(max(id), 0) FROM events));
                CREATE TABLE notification_settings (
                    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    list_mask INTEGER NOT NULL,
                    push_mask INTEGER NOT NULL,
                    language TEXT
                );
                CREATE TABLE stream_tickets (
                    hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    expires_at INTEGER NOT NULL,
                    stream_ends_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE push_subscriptions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    endpoint TEXT NOT NULL UNIQUE CHECK (length(endpoint) <= 1024),
                    p256dh TEXT NOT NULL,
                    auth TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE INDEX push_subscriptions_by_user ON push_subscriptions(user_id, updated_at);
                CREATE TABLE push_deliveries (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    subscription_id INTEGER NOT NULL REFERENCES push_subscriptions(id) ON DELETE CASCADE,
                    group_id INTEGER NOT NULL,
                    notification_id INTEGER NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    due_at INTEGER NOT NULL,
                    claimed_until INTEGER
                );
                CREATE INDEX push_deliveries_due ON push_deliveries(due_at);
                CREATE INDEX push_deliveries_by_subscription ON push_deliveries(subscription_id);
                """)
    }
}
