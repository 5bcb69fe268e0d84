/// The migration that lets stories outlive one Live Activity (`Renewal`): a key's own
/// `renew` (`activities.renew_before`: NULL the scenario's, 0 off; `renew_until`), a row per
/// renewal decided (its two pushes, a cursor over the key's followers like a fan-out's, the
/// range in flight and what came of it), and a row per device only where its renewal differs
/// from the range it was in: a start to retry, or an end owed.
enum RenewalMigration {
    static func step(version: Int) -> Migrations.Step {
        Migrations.Step(
            version: version,
            statements: [
                "ALTER TABLE activities ADD COLUMN renew_before BIGINT",
                "ALTER TABLE activities ADD COLUMN renew_until BIGINT",
                """
                CREATE TABLE renewals (
                    id {serial},
                    activity_key TEXT NOT NULL,
                    generation BIGINT NOT NULL,
                    topic TEXT,
                    expiration BIGINT NOT NULL,
                    decided_at BIGINT NOT NULL,
                    start_payload {bytes} NOT NULL,
                    start_priority BIGINT NOT NULL,
                    end_payload {bytes} NOT NULL,
                    end_priority BIGINT NOT NULL,
                    upto BIGINT NOT NULL,
                    reached BIGINT NOT NULL DEFAULT -1,
                    claimed_by TEXT NOT NULL DEFAULT '',
                    claim_expires_at BIGINT NOT NULL DEFAULT 0,
                    claim_to BIGINT NOT NULL DEFAULT 0,
                    state TEXT NOT NULL DEFAULT 'running',
                    renewed BIGINT NOT NULL DEFAULT 0,
                    refused BIGINT NOT NULL DEFAULT 0,
                    in_doubt BIGINT NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    finished_at BIGINT
                )
                """,
                "CREATE INDEX renewals_key ON renewals (activity_key, id)",
                "CREATE INDEX renewals_running ON renewals (id) WHERE state = 'running'",
                """
                CREATE TABLE renewal_steps (
                    renewal_id BIGINT NOT NULL,
                    target BIGINT NOT NULL,
                    activity_key TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    start_token TEXT NOT NULL,
                    update_token TEXT NOT NULL,
                    environment TEXT,
                    attempts BIGINT NOT NULL DEFAULT 0,
                    due_at BIGINT NOT NULL,
                    claimed_by TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (renewal_id, target)
                )
                """,
                "CREATE INDEX renewal_steps_due ON renewal_steps (due_at)",
            ])
    }
}
