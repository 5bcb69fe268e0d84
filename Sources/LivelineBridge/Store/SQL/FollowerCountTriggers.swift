/// The follower counts by state, kept per key in `follower_counts` by triggers on `followers`
/// and `follower_exceptions`, so `GET /v1/activities/{key}` (and a dashboard polling it every
/// second) reads one row instead of scanning an audience of a million. A trigger runs in the
/// statement's transaction, so every path that adds, changes or removes a follower (the
/// registry API, the NDJSON import, a 410's removal, a retry, a catch-up, an activity's
/// deletion) keeps the counts exact without having to remember them.
///
/// A follower counts as exactly one of: `updating` (an update token, not on the channel),
/// `awaiting_start` (no update token, not on the channel), `on_channel`; and its exception, if
/// any, as `retrying` or `catching_up` (state `late`).
///
/// Migrations 8 and 9 run these statements: like any released step, they change only by a new
/// migration that replaces them. Migration 16 (``AndroidFollowerMigration``) does so for the
/// followers' counts: an Android follower (an FCM token, sent every message) counts as
/// `updating`, and once more under `android`, the key's followers by platform.
enum FollowerCountTriggers {
    /// Each count of a follower row `row` (`NEW` or `OLD`, or a transition table's alias) as a
    /// 0-or-1 SQL expression, in `follower_counts` column order.
    /// With `android`, as migration 16 counts them: an FCM token counts as `updating`, and as
    /// `android`.
    static func followerCounts(
        _ row: String, integer: (String) -> String, android: Bool = false
    ) -> [(column: String, value: String)] {
        guard android else {
            return [
                ("updating", integer("\(row).on_channel = 0 AND \(row).update_token IS NOT NULL")),
                ("awaiting_start", integer("\(row).on_channel = 0 AND \(row).update_token IS NULL")),
                ("on_channel", integer("\(row).on_channel <> 0")),
            ]
        }
        return [
            (
                "updating",
                integer("\(row).on_channel = 0 AND (\(row).update_token IS NOT NULL OR \(row).fcm_token IS NOT NULL)")
            ),
            (
                "awaiting_start",
                integer("\(row).on_channel = 0 AND \(row).update_token IS NULL AND \(row).fcm_token IS NULL")
            ),
            ("on_channel", integer("\(row).on_channel <> 0")),
            ("android", integer("\(row).fcm_token IS NOT NULL")),
        ]
    }

    /// The same for an exception row.
    static func exceptionCounts(_ row: String, integer: (String) -> String) -> [(column: String, value: String)] {
        [
            ("retrying", integer("\(row).state = 'retrying'")),
            ("catching_up", integer("\(row).state = 'late'")),
        ]
    }

    static let table = """
        CREATE TABLE follower_counts (
            activity_key TEXT PRIMARY KEY,
            updating BIGINT NOT NULL DEFAULT 0,
            awaiting_start BIGINT NOT NULL DEFAULT 0,
            on_channel BIGINT NOT NULL DEFAULT 0,
            retrying BIGINT NOT NULL DEFAULT 0,
            catching_up BIGINT NOT NULL DEFAULT 0
        )
        """

    /// Counts what is stored already (the migration that adds the table).
    static let fill: [String] = {
        let sum: (String) -> String = { "SUM(CASE WHEN \($0) THEN 1 ELSE 0 END)" }
        let followers = followerCounts("f", integer: sum)
        let exceptions = exceptionCounts("e", integer: sum)
        return [
            """
            INSERT INTO follower_counts (activity_key, \(followers.map(\.column).joined(separator: ", ")))
            SELECT f.activity_key, \(followers.map(\.value).joined(separator: ", ")) FROM followers f WHERE 1 = 1 GROUP BY f.activity_key
            """,
            """
            INSERT INTO follower_counts (activity_key, \(exceptions.map(\.column).joined(separator: ", ")))
            SELECT e.activity_key, \(exceptions.map(\.value).joined(separator: ", ")) FROM follower_exceptions e WHERE 1 = 1 GROUP BY e.activity_key
            ON CONFLICT (activity_key) DO UPDATE SET \(exceptions.map { "\($0.column) = excluded.\($0.column)" }.joined(separator: ", "))
            """,
        ]
    }()

    // MARK: SQLite: row triggers (one writer; an in-place update of the key's row per change)

    static let sqlite: [String] =
        sqliteTriggers(
            table: "followers", name: "count_followers", columns: { followerCounts($0, integer: bit) },
            changed: "update_token, on_channel")
        + sqliteTriggers(
            table: "follower_exceptions", name: "count_follower_exceptions",
            columns: { exceptionCounts($0, integer: bit) }, changed: "state")

    /// A 0-or-1 SQL expression of `condition`.
    static func bit(_ condition: String) -> String { "(CASE WHEN \(condition) THEN 1 ELSE 0 END)" }

    /// One table's three row triggers: each adds or takes the row's counts (`columns` of `NEW` or
    /// `OLD`) in the key's count row, the update one only when an update of `changed` moved one.
    static func sqliteTriggers(
        table: String, name: String, columns: (String) -> [(column: String, value: String)], changed: String
    ) -> [String] {
        let new = columns("NEW"), old = columns("OLD")
        return [
            """
            CREATE TRIGGER \(name)_insert AFTER INSERT ON \(table) BEGIN
                INSERT INTO follower_counts (activity_key, \(new.map(\.column).joined(separator: ", ")))
                VALUES (NEW.activity_key, \(new.map(\.value).joined(separator: ", ")))
                ON CONFLICT (activity_key) DO UPDATE SET
                    \(new.map { "\($0.column) = \($0.column) + excluded.\($0.column)" }.joined(separator: ", "));
            END
            """,
            """
            CREATE TRIGGER \(name)_update AFTER UPDATE OF \(changed) ON \(table)
            WHEN \(zip(old, new).map { "\($0.value) <> \($1.value)" }.joined(separator: " OR ")) BEGIN
                UPDATE follower_counts SET
                    \(zip(old, new).map { "\($0.column) = \($0.column) - \($0.value) + \($1.value)" }.joined(separator: ", "))
                WHERE activity_key = NEW.activity_key;
            END
            """,
            """
            CREATE TRIGGER \(name)_delete AFTER DELETE ON \(table) BEGIN
                UPDATE follower_counts SET \(old.map { "\($0.column) = \($0.column) - \($0.value)" }.joined(separator: ", "))
                WHERE activity_key = OLD.activity_key;
            END
            """,
        ]
    }

    // MARK: PostgreSQL: statement triggers over transition tables

    /// One function and three triggers per table: a statement's changed rows are summed per key
    /// and added in one upsert (keys in order, so two writers lock count rows in the same order),
    /// and a statement that changes no count (a catch-up claimed, a start token replaced) does
    /// not touch the count row.
    static let postgres: [String] =
        [
            postgresFunction(name: "count_followers", columns: { followerCounts($0, integer: bit) }),
            postgresFunction(name: "count_follower_exceptions", columns: { exceptionCounts($0, integer: bit) }),
        ] + postgresTriggers(on: "followers") + postgresTriggers(on: "follower_exceptions")

    /// The function a table's statement triggers run: the changed rows' `columns` summed per key
    /// and added to the count rows in one upsert.
    static func postgresFunction(
        name: String, columns: (String) -> [(column: String, value: String)], replacing: Bool = false
    ) -> String {
        let names = columns("r").map(\.column)
        func upsert(_ sources: [(table: String, sign: String)]) -> String {
            let rows = sources.map { source in
                "SELECT r.activity_key, \(columns("r").map { "\(source.sign)\($0.value) AS \($0.column)" }.joined(separator: ", ")) FROM \(source.table) r"
            }.joined(separator: " UNION ALL ")
            return """
                INSERT INTO follower_counts AS c (activity_key, \(names.joined(separator: ", ")))
                    SELECT d.activity_key, \(names.map { "SUM(d.\($0))" }.joined(separator: ", ")) FROM (\(rows)) d
                    GROUP BY d.activity_key HAVING \(names.map { "SUM(d.\($0)) <> 0" }.joined(separator: " OR "))
                    ORDER BY d.activity_key
                    ON CONFLICT (activity_key) DO UPDATE SET \(names.map { "\($0) = c.\($0) + excluded.\($0)" }.joined(separator: ", "));
                """
        }
        return """
            CREATE \(replacing ? "OR REPLACE " : "")FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    \(upsert([("new_rows", "")]))
                ELSIF TG_OP = 'UPDATE' THEN
                    \(upsert([("new_rows", ""), ("old_rows", "-")]))
                ELSE
                    \(upsert([("old_rows", "-")]))
                END IF;
                RETURN NULL;
            END
            $$
            """
    }

    /// One table's three triggers (a migration that rebuilds `followers` creates them again).
    static func postgresTriggers(on table: String) -> [String] {
        let name = table == "followers" ? "count_followers" : "count_follower_exceptions"
        return [
            "CREATE TRIGGER \(name)_insert AFTER INSERT ON \(table) REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION \(name)()",
            """
            CREATE TRIGGER \(name)_update AFTER UPDATE ON \(table) REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION \(name)()
            """,
            "CREATE TRIGGER \(name)_delete AFTER DELETE ON \(table) REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION \(name)()",
        ]
    }
}
