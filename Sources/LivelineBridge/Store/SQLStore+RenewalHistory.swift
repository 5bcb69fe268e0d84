import Foundation
import Liveline

/// Renewals in the delivery history (`push_history`), written by the renewals' own
/// transactions, as the outbox's pushes and the fan-outs are:
///
/// - The key's own activity gets an entry per answered attempt of the successor's start and of
///   the predecessor's end, with APNs' status, reason and `apns-id`, the instance and the times
///   (stored when the renewal was decided, sent at its pass, answered when APNs answered). A
///   device held while its app is halted gets an entry when it is first held, and again only
///   when APNs refuses the probe; a start in doubt gets one, never a second start.
/// - The key's followers get one entry per push (the starts, the ends), made when the renewal
///   is decided and counted as ranges and steps are answered (devices sent, failed, held once
///   while they wait), with failure summaries naming a few devices (`renewal_failures`). It
///   reads `fanning-out` until the renewal is done, then `fanned-out` (or goes, when no
///   follower could be renewed).
/// - A follower's own last answer (`follower_pushes`, with `history_id`) is its renewal's,
///   until a newer fan-out reaches it.
extension SQLStore {
    /// One device's renewal push as the store writes it.
    struct RenewalDelivery {
        var target: RenewalTarget
        var kind: RenewalStep.Kind
        var answer: RenewalAnswer
        /// This attempt's number (1 for the first).
        var attempt: Int
        /// The device already waited for its halted app before this answer (its hold is recorded).
        var wasHeld: Bool

        var isFollower: Bool { target.followerID > 0 }

        /// What the history says of it, or nil when it adds nothing (a hold again, an end the
        /// cutoff came before).
        var recorded: (outcome: PushRecord.Outcome, error: String?)? {
            switch answer.outcome {
            case .started:
                return (.delivered, nil)
            case .ended:
                // A gone token has nothing left to end: said so, not delivered.
                guard let status = answer.answer?.status, !(200..<300).contains(status) else {
                    return (.delivered, nil)
                }
                return (.tokenGone, "the predecessor's token is gone: there is nothing left to end")
            case .retry(let error, _, let counted):
                return counted || answer.answer != nil ? (.retrying, error) : nil
            case .held(let error, _):
                return wasHeld && answer.answer == nil ? nil : (.held, error)
            case .refused(let reason, let forgetStartToken):
                return (forgetStartToken ? .tokenGone : .refused, reason)
            case .endFailed(let reason):
                return (.refused, reason)
            case .inDoubt:
                return (.inDoubt, renewalInDoubtError)
            }
        }

        /// The reason a failure is summed under (APNs', `transport`, `in-doubt`); nil when it
        /// is no failure.
        var failureReason: String? {
            switch answer.outcome {
            case .started, .retry, .held:
                return nil
            case .ended:
                guard let status = answer.answer?.status, !(200..<300).contains(status) else { return nil }
                return answer.answer?.reason ?? String(status)
            case .refused, .endFailed:
                guard let answered = answer.answer else { return "transport" }
                return answered.reason ?? (answered.status > 0 ? String(answered.status) : "transport")
            case .inDoubt:
                return inDoubtReason
            }
        }
    }

    /// What the history says of a renewal's start in doubt.
    static let renewalInDoubtError =
        "the successor's start was sent by an instance that stopped before APNs' answer was recorded; it is not "
        + "sent again: the device shows the successor (its app reports the token) or keeps its activity"

    /// A renewal's two entries for the key's followers, as its dispatch step writes it, when the
    /// key has followers.
    static func recordRenewal(
        id: Int64, _ renewal: RenewalPushes, followersUpTo upto: Int64, now: Millis, _ tx: any SQLTransaction
    ) async throws {
        guard upto > 0 else { return }
        for kind in [RenewalStep.Kind.start, .end] {
            let (push, reason) = renewal.push(kind)
            try await tx.run(
                """
                INSERT INTO push_history (activity_key, kind, priority, reason, payload, stored_at, outcome, renewal_id,
                                          audience)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """,
                [
                    .text(renewal.activityKey), .text(push.kind.rawValue), .int(Int64(push.headers.priority.apnsValue)),
                    .text(reason), .bytes(push.payload), .int(now), .text(PushRecord.Outcome.fanningOut.rawValue),
                    .int(id), .int(upto),
                ])
        }
    }

    /// The answers of one renewal's devices, sent by `instance` at `now`: the key's own as
    /// entries of their own, the followers' counted in the renewal's entries and each kept as
    /// the follower's last answer.
    static func recordRenewalAnswers(
        _ deliveries: [RenewalDelivery], renewalID: Int64, pushes: RenewalPushes, instance: String, now: Millis,
        _ tx: any SQLTransaction
    ) async throws {
        guard deliveries.contains(where: { $0.recorded != nil }) else { return }
        let stored = try await tx.run("SELECT created_at FROM renewals WHERE id = $1", [.int(renewalID)]).first?.int(0)
        for delivery in deliveries where !delivery.isFollower {
            guard let (outcome, error) = delivery.recorded else { continue }
            let (push, reason) = pushes.push(delivery.kind)
            let answer = delivery.answer.answer
            let sent = outcome != .inDoubt && !(outcome == .held && answer == nil)
            try await tx.run(
                """
                INSERT INTO push_history (activity_key, kind, priority, reason, payload, stored_at, sent_at, answered_at,
                                          status, apns_reason, apns_id, instance, outcome, error, attempt, renewal_id)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
                """,
                [
                    .text(pushes.activityKey), .text(push.kind.rawValue), .int(Int64(push.headers.priority.apnsValue)),
                    .text(reason), .bytes(push.payload), .int(stored ?? now), sent ? .int(now) : .null,
                    .optional(answer?.at), .optional(answer.map { Int64($0.status) }), .optional(answer?.reason),
                    .optional(answer?.apnsID), .text(outcome == .inDoubt ? "" : instance), .text(outcome.rawValue),
                    .optional(error), .int(Int64(delivery.attempt)), .int(renewalID),
                ])
        }
        let followers = deliveries.filter { $0.isFollower && $0.recorded != nil }
        guard !followers.isEmpty else { return }
        var entries: [String: Int64] = [:]
        for row in try await tx.run(
            "SELECT kind, id FROM push_history WHERE renewal_id = $1 AND audience > 0", [.int(renewalID)])
        {
            entries[try row.text(0)] = try row.int(1)
        }
        let devices = try await followerDevices(
            pushes.activityKey, Array(Set(followers.map(\.target.followerID))).sorted(), tx)
        for kind in [RenewalStep.Kind.start, .end] {
            let ofKind = followers.filter { $0.kind == kind }
            // Without its entry (decided while the history was off) a renewal is not counted.
            guard !ofKind.isEmpty, let entry = entries[pushes.push(kind).push.kind.rawValue] else { continue }
            try await countRenewal(ofKind, entry: entry, instance: instance, now: now, tx)
            try await recordFollowerRenewals(ofKind, entry: entry, activityKey: pushes.activityKey, now: now, tx)
            var failed: [String: (count: Int, tokens: [String], devices: [String])] = [:]
            for delivery in ofKind {
                guard let reason = delivery.failureReason else { continue }
                var summary = failed[reason] ?? (0, [], [])
                summary.count += 1
                let token = kind == .start ? delivery.target.startToken : delivery.target.updateToken
                if summary.tokens.count < summarySample { summary.tokens.append(sampleToken(token)) }
                if summary.devices.count < summarySample, let device = devices[delivery.target.followerID] {
                    summary.devices.append(device)
                }
                failed[reason] = summary
            }
            for (reason, summary) in failed.sorted(by: { $0.key < $1.key }) {
                try await addFailures(
                    .renewal, id: entry, activityKey: pushes.activityKey, reason: reason, count: summary.count,
                    tokens: summary.tokens, devices: summary.devices, now: now, tx)
            }
        }
    }

    /// Counts followers' answers in the renewal's entry: sent, failed, and held once per wait.
    private static func countRenewal(
        _ deliveries: [RenewalDelivery], entry: Int64, instance: String, now: Millis, _ tx: any SQLTransaction
    ) async throws {
        var sent = 0, failed = 0, held = 0
        for delivery in deliveries {
            if delivery.failureReason != nil {
                failed += 1
            } else if case .held = delivery.answer.outcome {
                if !delivery.wasHeld { held += 1 }
            } else if case .started = delivery.answer.outcome {
                sent += 1
            } else if case .ended = delivery.answer.outcome {
                sent += 1
            }
        }
        let answered = deliveries.compactMap(\.answer.answer?.at).max() ?? now
        try await tx.run(
            """
            UPDATE push_history SET sent = sent + $2, failed = failed + $3, held = held + $4, answered_at = $5,
                   sent_at = COALESCE(sent_at, $6), instance = \(instanceAdded("$7"))
            WHERE id = $1
            """,
            [
                .int(entry), .int(Int64(sent)), .int(Int64(failed)), .int(Int64(held)), .int(answered), .int(now),
                .text(instance),
            ])
    }

    /// Each follower's answer as its last (`follower_pushes`), pointing at the renewal's entry.
    private static func recordFollowerRenewals(
        _ deliveries: [RenewalDelivery], entry: Int64, activityKey: String, now: Millis, _ tx: any SQLTransaction
    ) async throws {
        for delivery in deliveries.sorted(by: { $0.target.followerID < $1.target.followerID }) {
            guard let (outcome, error) = delivery.recorded else { continue }
            let (state, reason): (String, String?) =
                switch outcome {
                case .delivered: ("delivered", nil)
                case .held: ("held", error)
                case .retrying: ("retrying", error)
                case .inDoubt: ("in-doubt", nil)
                default: ("failed", delivery.failureReason)
                }
            try await tx.run(
                """
                INSERT INTO follower_pushes (follower_id, activity_key, fanout_id, outcome, reason, answered_at, history_id)
                VALUES ($1, $2, 0, $3, $4, $5, $6)
                ON CONFLICT (follower_id) DO UPDATE SET activity_key = excluded.activity_key, fanout_id = 0,
                    outcome = excluded.outcome, reason = excluded.reason, answered_at = excluded.answered_at,
                    history_id = excluded.history_id
                """,
                [
                    .int(delivery.target.followerID), .text(activityKey), .text(state), .optional(reason),
                    .int(delivery.answer.answer?.at ?? now), .int(entry),
                ])
        }
    }

    /// The devices of followers `ids` of `key`, by id.
    private static func followerDevices(
        _ key: String, _ ids: [Int64], _ tx: any SQLTransaction
    ) async throws -> [Int64: String] {
        var devices: [Int64: String] = [:]
        for chunk in chunks(ids.count) {
            for row in try await tx.run(
                """
                SELECT id, device FROM followers WHERE activity_key = $1
                  AND id IN (\(SQLDialect.placeholders(from: 2, count: chunk.count)))
                """,
                [.text(key)] + chunk.map { .int(ids[$0]) }
            ) {
                devices[try row.int(0)] = try row.text(1)
            }
        }
        return devices
    }

    /// A renewal done: its followers' entries are done too, or go when no follower was sent
    /// anything (none could be renewed).
    static func recordRenewalFinished(_ id: Int64, now: Millis, _ tx: any SQLTransaction) async throws {
        try await tx.run(
            "DELETE FROM push_history WHERE renewal_id = $1 AND audience > 0 AND sent + failed + held = 0 AND sent_at IS NULL",
            [.int(id)])
        try await tx.run(
            """
            UPDATE push_history SET outcome = $2, answered_at = COALESCE(answered_at, $3)
            WHERE renewal_id = $1 AND audience > 0 AND outcome = $4
            """,
            [
                .int(id), .text(PushRecord.Outcome.fannedOut.rawValue), .int(now),
                .text(PushRecord.Outcome.fanningOut.rawValue),
            ])
    }

    /// A follower's last push when its own last answer is a renewal's (`history`): that entry,
    /// and what became of it for this device. Nil when the entry is gone (pruned).
    static func renewalLastPush(
        follower: Int64, history: Int64, outcome: String, reason: String?, answeredAt: Millis?,
        _ tx: any SQLTransaction
    ) async throws -> FollowerLastPush? {
        guard
            let row = try await tx.run("SELECT \(recordColumns) FROM push_history h WHERE h.id = $1", [.int(history)])
                .first
        else { return nil }
        var push = try record(row)
        push.fanOut?.failures = try await failureSummaries(.renewal, of: [push.id], tx)[push.id] ?? []
        // A step still waiting: when it is due.
        let due = try await tx.run(
            "SELECT due_at FROM renewal_steps WHERE renewal_id = $1 AND target = $2",
            [.int(push.renewal ?? 0), .int(follower)]
        ).first?.int(0)
        let delivery: FollowerLastPush.Outcome
        switch outcome {
        case "delivered": delivery = .delivered
        case "held": delivery = .held(error: reason, until: due ?? answeredAt ?? 0)
        case "retrying": delivery = .retrying(error: reason, dueAt: due ?? answeredAt ?? 0)
        case "in-doubt": delivery = .inDoubt
        default: delivery = .failed(reason: reason ?? "unknown")
        }
        return FollowerLastPush(push: push, outcome: delivery, answeredAt: answeredAt)
    }
}
