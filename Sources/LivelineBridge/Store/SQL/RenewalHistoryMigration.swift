/// The migration that puts renewals in the delivery history (`push_history`): a renewal keeps
/// the engine's reasons for its two pushes; a history entry names the renewal it belongs to
/// (`renewal_id`: the key's own activity gets an entry per answered attempt, its followers one
/// entry per push with counts, as a fan-out's); a renewal's failures are summed per entry and
/// reason with a few devices (`renewal_failures`); a follower's own last answer may be a
/// renewal's (`follower_pushes.history_id`); a device's step says whether it already waits for
/// a halted app (`renewal_steps.held`), so a hold is recorded once.
enum RenewalHistoryMigration {
    static func step(version: Int) -> Migrations.Step {
        Migrations.Step(
            version: version,
            statements: [
                "ALTER TABLE renewals ADD COLUMN start_reason TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE renewals ADD COLUMN end_reason TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE renewal_steps ADD COLUMN held BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE push_history ADD COLUMN renewal_id BIGINT",
                "CREATE INDEX push_history_renewal ON push_history (renewal_id) WHERE renewal_id IS NOT NULL",
                "ALTER TABLE follower_pushes ADD COLUMN history_id BIGINT",
                """
                CREATE TABLE renewal_failures (
                    history_id BIGINT NOT NULL,
                    activity_key TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    count BIGINT NOT NULL,
                    sample TEXT NOT NULL,
                    failed_at BIGINT NOT NULL,
                    devices TEXT NOT NULL,
                    PRIMARY KEY (history_id, reason)
                )
                """,
            ])
    }
}
