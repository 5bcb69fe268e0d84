/// The migration that gives tokens their APNs environment: `activities.environment` and
/// `followers.environment` (`sandbox`, `production`, or NULL for the configuration's
/// `apns.environment`, as every token stored before it), and `follower_environments`, a key's
/// followers that name an environment, counted per environment by triggers of their own in
/// the transaction of every change, so `GET /v1/activities/{key}` and the metrics read a row
/// or two per key instead of the audience. Followers that name none are the rest of the key's
/// total (``FollowerCountTriggers``).
///
/// The triggers fire only for rows with an environment (SQLite's `WHEN`; PostgreSQL's statement
/// function upserts only where a sum moved), so an audience that names none pays next to nothing.
enum TokenEnvironmentMigration {
    static func step(version: Int) -> Migrations.Step {
        Migrations.Step(
            version: version,
            statements: [
                "ALTER TABLE activities ADD COLUMN environment TEXT",
                "ALTER TABLE followers ADD COLUMN environment TEXT",
                """
                CREATE TABLE follower_environments (
                    activity_key TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    followers BIGINT NOT NULL DEFAULT 0,
                    PRIMARY KEY (activity_key, environment)
                )
                """,
            ],
            sqlite: sqlite, postgres: postgres)
    }

    static let sqlite: [String] = [
        """
        CREATE TRIGGER count_follower_environments_insert AFTER INSERT ON followers
        WHEN NEW.environment IS NOT NULL BEGIN
            INSERT INTO follower_environments (activity_key, environment, followers) VALUES (NEW.activity_key, NEW.environment, 1)
            ON CONFLICT (activity_key, environment) DO UPDATE SET followers = followers + 1;
        END
        """,
        """
        CREATE TRIGGER count_follower_environments_update AFTER UPDATE OF environment ON followers
        WHEN NEW.environment IS NOT OLD.environment BEGIN
            UPDATE follower_environments SET followers = followers - 1
            WHERE activity_key = OLD.activity_key AND environment = OLD.environment;
            INSERT INTO follower_environments (activity_key, environment, followers)
            SELECT NEW.activity_key, NEW.environment, 1 WHERE NEW.environment IS NOT NULL
            ON CONFLICT (activity_key, environment) DO UPDATE SET followers = followers + 1;
        END
        """,
        """
        CREATE TRIGGER count_follower_environments_delete AFTER DELETE ON followers
        WHEN OLD.environment IS NOT NULL BEGIN
            UPDATE follower_environments SET followers = followers - 1
            WHERE activity_key = OLD.activity_key AND environment = OLD.environment;
        END
        """,
    ]

    static let postgres: [String] = {
        func sums(_ sources: [(table: String, sign: String)]) -> String {
            let rows = sources.map {
                "SELECT r.activity_key, r.environment, \($0.sign)1 AS n FROM \($0.table) r WHERE r.environment IS NOT NULL"
            }.joined(separator: " UNION ALL ")
            return """
                INSERT INTO follower_environments AS c (activity_key, environment, followers)
                    SELECT d.activity_key, d.environment, SUM(d.n) FROM (\(rows)) d
                    GROUP BY d.activity_key, d.environment HAVING SUM(d.n) <> 0
                    ORDER BY d.activity_key, d.environment
                    ON CONFLICT (activity_key, environment) DO UPDATE SET followers = c.followers + excluded.followers;
                """
        }
        return [
            """
            CREATE FUNCTION count_follower_environments() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    \(sums([("new_rows", "")]))
                ELSIF TG_OP = 'UPDATE' THEN
                    \(sums([("new_rows", ""), ("old_rows", "-")]))
                ELSE
                    \(sums([("old_rows", "-")]))
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER count_follower_environments_insert AFTER INSERT ON followers
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_follower_environments()
            """,
            """
            CREATE TRIGGER count_follower_environments_update AFTER UPDATE ON followers
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_follower_environments()
            """,
            """
            CREATE TRIGGER count_follower_environments_delete AFTER DELETE ON followers
            REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_follower_environments()
            """,
        ]
    }()
}
