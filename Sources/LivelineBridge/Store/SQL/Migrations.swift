import Foundation

/// The schema, as numbered steps. A store applies the steps it lacks at open, in order, in one
/// transaction, and records each in `migrations`. Never edit a released step; add one.
///
/// `{serial}` and `{bytes}` are the dialect's auto-numbered key and bytes types; everything
/// else is SQL both databases read the same way. Times are BIGINT milliseconds since 1970.
enum Migrations {
    struct Step: Sendable {
        var version: Int
        var statements: [String]
        /// Run after `statements`, on that database only.
        var sqlite: [String] = []
        var postgres: [String] = []
    }

    static let steps: [Step] = [
        Step(
            version: 1,
            statements: [
                """
                CREATE TABLE inbox_events (
                    sequence {serial},
                    source TEXT NOT NULL,
                    event_id TEXT NOT NULL,
                    event_type TEXT NOT NULL,
                    activity_key TEXT NOT NULL,
                    order_key BIGINT NOT NULL,
                    received_at BIGINT NOT NULL,
                    body {bytes} NOT NULL,
                    headers {bytes} NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending',
                    reason TEXT,
                    UNIQUE (source, event_id)
                )
                """,
                "CREATE INDEX inbox_pending ON inbox_events (activity_key, state, order_key, sequence)",
                """
                CREATE TABLE activity_leases (
                    activity_key TEXT PRIMARY KEY,
                    instance TEXT NOT NULL DEFAULT '',
                    expires_at BIGINT NOT NULL DEFAULT 0
                )
                """,
                """
                CREATE TABLE activities (
                    key TEXT PRIMARY KEY,
                    update_token TEXT,
                    push_to_start_token TEXT,
                    channel_id TEXT,
                    scenario TEXT NOT NULL,
                    frequent_updates BIGINT NOT NULL,
                    lifecycle TEXT NOT NULL,
                    engine_state {bytes},
                    next_deadline BIGINT,
                    last_push_at BIGINT,
                    last_push_status BIGINT,
                    last_push_reason TEXT,
                    last_push_apns_id TEXT,
                    last_error TEXT,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX activities_deadline ON activities (next_deadline)",
                """
                CREATE TABLE outbox (
                    id {serial},
                    activity_key TEXT NOT NULL,
                    payload {bytes} NOT NULL,
                    headers {bytes} NOT NULL,
                    priority BIGINT NOT NULL,
                    due_at BIGINT NOT NULL,
                    attempts BIGINT NOT NULL DEFAULT 0,
                    claimed_by TEXT NOT NULL DEFAULT '',
                    claim_expires_at BIGINT NOT NULL DEFAULT 0,
                    last_error TEXT
                )
                """,
                "CREATE INDEX outbox_due ON outbox (due_at, id)",
                """
                CREATE TABLE dead_letters (
                    id {serial},
                    activity_key TEXT NOT NULL,
                    payload {bytes} NOT NULL,
                    headers {bytes} NOT NULL,
                    priority BIGINT NOT NULL,
                    due_at BIGINT NOT NULL,
                    attempts BIGINT NOT NULL,
                    last_error TEXT NOT NULL,
                    failed_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE api_keys (
                    name TEXT PRIMARY KEY,
                    sha256 {bytes} NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
            ]),
        // The bridge's dispatcher: which token a push goes to, when its webhook came (for the
        // receipt-to-APNs latency), and when each event was applied (for recordings).
        Step(
            version: 2,
            statements: [
                "ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'update'",
                "ALTER TABLE outbox ADD COLUMN received_at BIGINT",
                "ALTER TABLE dead_letters ADD COLUMN kind TEXT NOT NULL DEFAULT 'update'",
                "ALTER TABLE inbox_events ADD COLUMN applied_at BIGINT",
                "CREATE INDEX outbox_activity ON outbox (activity_key, id)",
            ]),
        // Finding work without walking everything: an activity's lease row says whether it has
        // pending events (set by the inbox's insert, cleared by the dispatch commit that leaves
        // none), so a dispatch pass costs the same with ten or a million events stored; and the
        // pending-events index holds pending events only.
        Step(
            version: 3,
            statements: [
                "DROP INDEX inbox_pending",
                "CREATE INDEX inbox_pending ON inbox_events (activity_key, order_key, sequence) WHERE state = 'pending'",
                "ALTER TABLE activity_leases ADD COLUMN pending BIGINT NOT NULL DEFAULT 0",
                "UPDATE activity_leases SET pending = 1 WHERE activity_key IN (SELECT activity_key FROM inbox_events WHERE state = 'pending')",
                "CREATE INDEX leases_pending ON activity_leases (activity_key) WHERE pending = 1",
            ]),
        // Events for activities nobody registered (an order whose customer has no app) stay
        // pending for good; the pending mark now counts only for registered activities, so a
        // dispatch pass never walks them. A lease row says whether its activity is registered.
        Step(
            version: 4,
            statements: [
                "ALTER TABLE activity_leases ADD COLUMN registered BIGINT NOT NULL DEFAULT 0",
                "UPDATE activity_leases SET registered = 1 WHERE activity_key IN (SELECT key FROM activities)",
                "DROP INDEX leases_pending",
                "CREATE INDEX leases_pending ON activity_leases (activity_key) WHERE pending = 1 AND registered = 1",
            ]),
        // Reading events back: a stream resumes from its source's newest event after a restart,
        // and `liveline bridge record` reads an activity's events, or a source's over a time
        // range, without walking the whole inbox. One index by activity and state serves both
        // the dispatcher (an activity's pending events, in order) and the recorder (all of an
        // activity's events): each insert updates one index placed by activity, not two.
        Step(
            version: 5,
            statements: [
                "DROP INDEX inbox_pending",
                "CREATE INDEX inbox_activity ON inbox_events (activity_key, state, order_key, sequence)",
                "CREATE INDEX inbox_source_received ON inbox_events (source, received_at, sequence)",
            ]),
        // Writing fewer pages per event. Under load each event landed in its activity's part of
        // the one index by activity and state twice, in two commits (stored, then applied), and
        // with many activities each landing is a page of its own: about two pages written per
        // event. Now the pending events have an index of their own, which stays as small as the
        // backlog (its pages are few and shared by a whole batch), and the index by activity
        // holds (activity, sequence), which an event enters once and never moves in.
        Step(
            version: 6,
            statements: [
                "DROP INDEX inbox_activity",
                "CREATE INDEX inbox_pending ON inbox_events (activity_key, order_key, sequence) WHERE state = 'pending'",
                "CREATE INDEX inbox_by_activity ON inbox_events (activity_key, sequence)",
            ]),
        // Audiences: a key's followers (one compact row each, tokens as bytes), its fan-outs (one
        // row per decided push, with a cursor over the followers by id), the ranges instances
        // have claimed, and per-follower rows only where a follower differs from its fan-out
        // (retrying, joined late). A fan-out's failures are summed per reason, not one row each.
        Step(
            version: 7,
            statements: [
                """
                CREATE TABLE followers (
                    id {serial},
                    activity_key TEXT NOT NULL,
                    device TEXT NOT NULL,
                    update_token {bytes},
                    start_token {bytes},
                    on_channel BIGINT NOT NULL DEFAULT 0,
                    UNIQUE (activity_key, device)
                )
                """,
                "CREATE INDEX followers_page ON followers (activity_key, id)",
                """
                CREATE TABLE fanouts (
                    id {serial},
                    activity_key TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    payload {bytes} NOT NULL,
                    headers {bytes} NOT NULL,
                    priority BIGINT NOT NULL,
                    due_at BIGINT NOT NULL,
                    received_at BIGINT,
                    created_at BIGINT NOT NULL,
                    upto BIGINT NOT NULL,
                    reached BIGINT NOT NULL DEFAULT 0,
                    state TEXT NOT NULL DEFAULT 'running',
                    sent BIGINT NOT NULL DEFAULT 0,
                    failed BIGINT NOT NULL DEFAULT 0,
                    resumed BIGINT NOT NULL DEFAULT 0,
                    finished_at BIGINT
                )
                """,
                "CREATE INDEX fanouts_key ON fanouts (activity_key, id)",
                "CREATE INDEX fanouts_running ON fanouts (id) WHERE state = 'running'",
                """
                CREATE TABLE fanout_claims (
                    fanout_id BIGINT NOT NULL,
                    from_id BIGINT NOT NULL,
                    to_id BIGINT NOT NULL,
                    instance TEXT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    PRIMARY KEY (fanout_id, from_id)
                )
                """,
                """
                CREATE TABLE follower_exceptions (
                    follower_id BIGINT PRIMARY KEY,
                    activity_key TEXT NOT NULL,
                    state TEXT NOT NULL,
                    attempts BIGINT NOT NULL DEFAULT 0,
                    due_at BIGINT NOT NULL,
                    claimed_by TEXT NOT NULL DEFAULT '',
                    last_error TEXT
                )
                """,
                "CREATE INDEX follower_exceptions_due ON follower_exceptions (due_at)",
                "CREATE INDEX follower_exceptions_key ON follower_exceptions (activity_key)",
                """
                CREATE TABLE fanout_failures (
                    fanout_id BIGINT NOT NULL,
                    activity_key TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    count BIGINT NOT NULL,
                    sample TEXT NOT NULL,
                    failed_at BIGINT NOT NULL,
                    PRIMARY KEY (fanout_id, reason)
                )
                """,
            ]),
        // A key's follower counts by state, kept by triggers in the transaction of every change
        // (see FollowerCountTriggers), so reading them costs one row, not a pass over the audience.
        Step(
            version: 8, statements: [FollowerCountTriggers.table] + FollowerCountTriggers.fill,
            sqlite: FollowerCountTriggers.sqlite, postgres: FollowerCountTriggers.postgres
        ),
        // PostgreSQL's followers in fewer bytes (226 B a follower with its indexes, now 197 in
        // BENCHMARKS' audience run): the 8-byte-aligned columns first and `on_channel` a
        // SMALLINT (the row lost 8 bytes of padding), and one index fewer, the primary key
        // being (activity_key, id), which the fan-out pages through, instead of id alone beside
        // it. Every lookup by id names its key. Ids are kept (exceptions and fan-out cursors
        // refer to them). SQLite's row id is the table itself: nothing to change there.
        Step(
            version: 9, statements: [],
            postgres: [
                """
                CREATE TABLE followers_compact (
                    id BIGINT GENERATED BY DEFAULT AS IDENTITY,
                    on_channel SMALLINT NOT NULL DEFAULT 0,
                    activity_key TEXT NOT NULL,
                    device TEXT NOT NULL,
                    update_token BYTEA,
                    start_token BYTEA,
                    PRIMARY KEY (activity_key, id),
                    UNIQUE (activity_key, device)
                )
                """,
                """
                INSERT INTO followers_compact (id, on_channel, activity_key, device, update_token, start_token)
                SELECT id, on_channel, activity_key, device, update_token, start_token FROM followers ORDER BY activity_key, id
                """,
                "SELECT setval(pg_get_serial_sequence('followers_compact', 'id'), COALESCE((SELECT MAX(id) FROM followers_compact), 0) + 1, false)",
                "DROP TABLE followers",
                "ALTER TABLE followers_compact RENAME TO followers",
                "ALTER INDEX followers_compact_pkey RENAME TO followers_pkey",
                "ALTER INDEX followers_compact_activity_key_device_key RENAME TO followers_activity_key_device_key",
                "ALTER SEQUENCE followers_compact_id_seq RENAME TO followers_id_seq",
            ] + FollowerCountTriggers.postgresTriggers(on: "followers")),
        // A push's headers in typed columns instead of a JSON object the sender parsed back on
        // every send: `topic` (the `apns-topic`, NULL for none) and `expiration` (UNIX seconds,
        // 0 for now or never) beside the `priority` the tables already had. The push type is
        // always `liveactivity`, and no collapse id was ever stored. Existing rows are converted.
        Step(
            version: 10,
            statements: ["outbox", "dead_letters", "fanouts"].flatMap { table in
                [
                    "ALTER TABLE \(table) ADD COLUMN topic TEXT",
                    "ALTER TABLE \(table) ADD COLUMN expiration BIGINT NOT NULL DEFAULT 0",
                ]
            },
            sqlite: ["outbox", "dead_letters", "fanouts"].flatMap { table in
                [
                    // `->>` with a label: the SQLite driver reads every dollar sign as a placeholder.
                    """
                    UPDATE \(table) SET topic = CAST(headers AS TEXT) ->> 'apns-topic',
                        expiration = COALESCE(CAST(CAST(headers AS TEXT) ->> 'apns-expiration' AS INTEGER), 0)
                    """,
                    "ALTER TABLE \(table) DROP COLUMN headers",
                ]
            },
            postgres: ["outbox", "dead_letters", "fanouts"].flatMap { table in
                [
                    """
                    UPDATE \(table) SET topic = convert_from(headers, 'UTF8')::json ->> 'apns-topic',
                        expiration = COALESCE((convert_from(headers, 'UTF8')::json ->> 'apns-expiration')::BIGINT, 0)
                    """,
                    "ALTER TABLE \(table) DROP COLUMN headers",
                ]
            }),
        // An activity's column names the source it follows, as the registry API does; it was
        // `scenario`, the word the API keeps for the scenario file.
        Step(version: 11, statements: ["ALTER TABLE activities RENAME COLUMN scenario TO source"]),
        // Each token's APNs environment, and a key's followers counted by environment.
        TokenEnvironmentMigration.step(version: 12),
        // The delivery history (`GET /v1/activities/{key}/pushes`): a row per answered attempt of
        // an outbox push and one per fan-out, written in the transaction that records the
        // answer. The outbox and the fan-outs keep the engine's reason and when the push was
        // stored; a claim notes when it was sent. Per follower, only what differs from its
        // fan-out is kept (a failure, a catch-up's answer, a hold), and a failure summary names a
        // few followers by device. An outbox push's rows name it (`outbox_id`), so a push held
        // again while its app is halted adds no row; a fan-out counts the followers it held.
        Step(
            version: 13,
            statements: [
                "ALTER TABLE outbox ADD COLUMN reason TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE outbox ADD COLUMN stored_at BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE outbox ADD COLUMN claimed_at BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE fanouts ADD COLUMN reason TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE fanout_failures ADD COLUMN devices TEXT NOT NULL DEFAULT ''",
                """
                CREATE TABLE push_history (
                    id {serial},
                    activity_key TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    priority BIGINT NOT NULL,
                    reason TEXT NOT NULL,
                    payload {bytes} NOT NULL,
                    stored_at BIGINT NOT NULL,
                    sent_at BIGINT,
                    answered_at BIGINT,
                    status BIGINT,
                    apns_reason TEXT,
                    apns_id TEXT,
                    instance TEXT NOT NULL DEFAULT '',
                    outcome TEXT NOT NULL,
                    error TEXT,
                    attempt BIGINT NOT NULL DEFAULT 1,
                    fanout_id BIGINT,
                    audience BIGINT NOT NULL DEFAULT 0,
                    sent BIGINT NOT NULL DEFAULT 0,
                    failed BIGINT NOT NULL DEFAULT 0,
                    held BIGINT NOT NULL DEFAULT 0,
                    outbox_id BIGINT
                )
                """,
                "CREATE INDEX push_history_key ON push_history (activity_key, id)",
                "CREATE INDEX push_history_fanout ON push_history (fanout_id) WHERE fanout_id IS NOT NULL",
                "CREATE INDEX push_history_outbox ON push_history (outbox_id) WHERE outbox_id IS NOT NULL",
                "CREATE INDEX push_history_stored ON push_history (stored_at, id)",
                """
                CREATE TABLE follower_pushes (
                    follower_id BIGINT PRIMARY KEY,
                    activity_key TEXT NOT NULL,
                    fanout_id BIGINT NOT NULL,
                    outcome TEXT NOT NULL,
                    reason TEXT,
                    answered_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX follower_pushes_answered ON follower_pushes (answered_at)",
            ]),
        // Renewals: a story carried past the system's 8 hours on one activity.
        RenewalMigration.step(version: 14),
        // Renewals in the delivery history, like the outbox's pushes and the fan-outs.
        RenewalHistoryMigration.step(version: 15),
        // Android followers: an FCM token beside APNs tokens, each fan-out's FCM message.
        AndroidFollowerMigration.step(version: 16),
        // A key's own activity on an Android phone: its FCM token, each outbox push's FCM message.
        AndroidActivityMigration.step(version: 17),
    ]

    /// Applies the steps the store lacks (up to `last`, for tests of an upgrade), in one
    /// transaction; returns the versions applied now.
    static func apply(on driver: any SQLDriver, now: Int64, through last: Int = .max) async throws -> [Int] {
        let dialect = driver.dialect
        return try await driver.transaction { tx in
            if let lock = dialect.migrationLock { try await tx.run(lock) }
            try await tx.run(
                "CREATE TABLE IF NOT EXISTS migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)")
            let done = Set(try await tx.run("SELECT version FROM migrations").map { try $0.int(0) })
            var applied: [Int] = []
            for step in steps where !done.contains(Int64(step.version)) && step.version <= last {
                do {
                    let own =
                        switch dialect.kind {
                        case .sqlite: step.sqlite
                        case .postgres: step.postgres
                        }
                    for statement in step.statements + own {
                        try await tx.run(
                            statement.replacingOccurrences(of: "{serial}", with: dialect.serialPrimaryKey)
                                .replacingOccurrences(of: "{bytes}", with: dialect.bytes)
                        )
                    }
                    try await tx.run(
                        "INSERT INTO migrations (version, applied_at) VALUES ($1, $2)",
                        [.int(Int64(step.version)), .int(now)])
                } catch let error as StoreError {
                    throw StoreError(.migration(version: step.version), store: error.store, cause: error.cause)
                }
                applied.append(step.version)
            }
            return applied
        }
    }
}
