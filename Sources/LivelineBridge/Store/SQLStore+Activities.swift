import Foundation
import Liveline

/// The activity registry: one row per activity key.
extension SQLStore {
    static let activityColumns = """
        key, update_token, push_to_start_token, channel_id, source, frequent_updates, lifecycle, engine_state,
        next_deadline, last_push_at, last_push_status, last_push_reason, last_push_apns_id, last_error, updated_at,
        environment, renew_before, renew_until, fcm_token
        """

    /// One transaction: a new activity starts pending with no engine state; an existing one
    /// changes only its tokens (FCM's included), channel, environment, source, frequent-updates flag and update time, so a
    /// registration that races the dispatcher never undoes what the dispatcher wrote.
    public func registerActivity(_ registration: ActivityRegistration, now: Millis) async throws -> Bool {
        let targets = registration.targets
        let values: [SQLValue] =
            [
                .text(registration.activityKey), .optional(targets.updateToken), .optional(targets.pushToStartToken),
                .optional(targets.channelID), .text(registration.source), .int(registration.frequentUpdates ? 1 : 0),
                .text(ActivityEngine.Lifecycle.pending.rawValue), .int(now), .optional(targets.environment?.rawValue),
            ] + Self.renewalValues(registration.renewal) + [.optional(targets.fcmToken)]
        let history = keepsHistory
        return try await transaction { tx in
            try await Self.markRegistered(registration.activityKey, tx)
            let existing = try await tx.run(
                "SELECT push_to_start_token FROM activities WHERE key = $1", [.text(registration.activityKey)]
            ).first
            let existed = existing != nil
            try await tx.run(
                """
                INSERT INTO activities (key, update_token, push_to_start_token, channel_id, source, frequent_updates, lifecycle, updated_at, environment, renew_before, renew_until, fcm_token)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                ON CONFLICT (key) DO UPDATE SET update_token = excluded.update_token,
                    push_to_start_token = excluded.push_to_start_token, channel_id = excluded.channel_id,
                    source = excluded.source, frequent_updates = excluded.frequent_updates, updated_at = excluded.updated_at,
                    environment = excluded.environment, renew_before = excluded.renew_before, renew_until = excluded.renew_until,
                    fcm_token = excluded.fcm_token
                """,
                values
            )
            if existed {
                try await Self.settleOutboxStartInDoubt(
                    registration.activityKey, targets: targets, previousStartToken: try existing?.optionalText(0),
                    now: now, history: history, tx)
            }
            return !existed
        }
    }

    /// The lease row the dispatcher claims an activity by (made here for an activity registered
    /// before its first event), marked registered: from now on its pending events are work.
    static func markRegistered(_ key: String, _ tx: any SQLTransaction) async throws {
        try await tx.run(
            "INSERT INTO activity_leases (activity_key, registered) VALUES ($1, 1) ON CONFLICT (activity_key) DO UPDATE SET registered = 1",
            [.text(key)]
        )
    }

    public func activity(_ key: String) async throws -> RegisteredActivity? {
        try await transaction { tx in
            guard
                let row = try await tx.run(
                    "SELECT \(Self.activityColumns) FROM activities WHERE key = $1", [.text(key)]
                ).first
            else {
                return nil
            }
            return try Self.registeredActivity(row)
        }
    }

    /// Deletes the activity with its queued pushes, lease and followers; its events stay in the
    /// inbox (a key registered again picks up the pending ones).
    public func deleteActivity(_ key: String) async throws -> Bool {
        try await transaction { tx in
            let existed =
                !(try await tx.run("DELETE FROM activities WHERE key = $1 RETURNING key", [.text(key)]).isEmpty)
            try await tx.run("DELETE FROM outbox WHERE activity_key = $1", [.text(key)])
            // Its audience goes with it.
            try await tx.run(
                "DELETE FROM fanout_claims WHERE fanout_id IN (SELECT id FROM fanouts WHERE activity_key = $1)",
                [.text(key)])
            for table in [
                "fanouts", "follower_exceptions", "followers", "follower_counts", "follower_environments", "renewals",
                "renewal_steps",
            ] {
                try await tx.run("DELETE FROM \(table) WHERE activity_key = $1", [.text(key)])
            }
            try await tx.run("UPDATE activity_leases SET registered = 0 WHERE activity_key = $1", [.text(key)])
            return existed
        }
    }

    /// Reads a row of `activityColumns`.
    static func registeredActivity(_ row: SQLRow) throws -> RegisteredActivity {
        let lifecycleText = try row.text(6)
        guard let lifecycle = ActivityEngine.Lifecycle(rawValue: lifecycleText) else {
            throw SQLRowError("lifecycle \(lifecycleText) of activity \((try? row.text(0)) ?? "?")")
        }
        var lastPush: PushAnswer?
        if let at = try row.optionalInt(9) {
            lastPush = PushAnswer(
                at: at, status: Int(try row.optionalInt(10) ?? 0), reason: try row.optionalText(11),
                apnsID: try row.optionalText(12)
            )
        }
        return RegisteredActivity(
            activityKey: try row.text(0), updateToken: try row.optionalText(1),
            pushToStartToken: try row.optionalText(2),
            channelID: try row.optionalText(3), environment: try environment(row.optionalText(15)),
            source: try row.text(4),
            frequentUpdates: try row.int(5) != 0,
            lifecycle: lifecycle, engineState: try row.optionalBytes(7), nextDeadline: try row.optionalInt(8),
            lastPush: lastPush, lastError: try row.optionalText(13), updatedAt: try row.int(14),
            renewal: try renewalChoice(before: row.optionalInt(16), until: row.optionalInt(17)),
            fcmToken: try row.optionalText(18)
        )
    }

    /// A key's `renew` as stored: `renew_before` NULL for the scenario's, 0 for off.
    static func renewalValues(_ choice: RenewalChoice?) -> [SQLValue] {
        switch choice {
        case nil: [.null, .null]
        case .off?: [.int(0), .null]
        case .on(let before, let until)?: [.int(before), .int(until)]
        }
    }

    /// A stored `renew`, read back.
    static func renewalChoice(before: Int64?, until: Int64?) throws -> RenewalChoice? {
        guard let before else { return nil }
        guard before > 0 else { return .off }
        guard let until else { throw SQLRowError("renew_before \(before) without renew_until") }
        return .on(before: before, until: until)
    }

    /// A stored environment: NULL for the configuration's, else `sandbox` or `production`.
    static func environment(_ text: String?) throws -> APNsEnvironment? {
        guard let text else { return nil }
        guard let environment = APNsEnvironment(rawValue: text) else { throw SQLRowError("environment '\(text)'") }
        return environment
    }
}
