import Foundation
import Liveline

/// Renewals: one row per renewal decided, with a cursor over the key's followers by id (the
/// key's own activity first, as id 0, while `reached` is -1) and the one range in flight
/// (`claimed_by`, `claim_to`); `renewal_steps` holds a device only while its renewal differs from
/// its range (a start to retry, an end owed). A renewal is done once its cursor has passed every
/// follower it was decided for and no step is left; a key keeps its newest one, for its status.
extension SQLStore {
    /// The columns a renewal's pushes are read from, after its id.
    private static let renewalColumns = """
        r.id, r.activity_key, r.generation, r.topic, r.expiration, r.decided_at, r.start_payload, r.start_priority,
        r.end_payload, r.end_priority, r.start_reason, r.end_reason
        """

    /// A running renewal of the key blocks its pushes decided after it (due after its instant):
    /// a condition on a row with `activity_key` and `due_at` columns, aliased `alias`.
    static func notBehindRenewal(_ alias: String) -> String {
        """
        NOT EXISTS (SELECT 1 FROM renewals rb WHERE rb.activity_key = \(alias).activity_key
                    AND rb.state = 'running' AND rb.decided_at < \(alias).due_at)
        """
    }

    /// Reads ``renewalColumns`` into the renewal's id and pushes.
    private static func renewal(_ row: SQLRow) throws -> (id: Int64, pushes: RenewalPushes) {
        let key = try row.text(1)
        let topic = try row.optionalText(3)
        let expiration = try row.int(4)
        let decidedAt = try row.int(5)
        func push(_ kind: PushEvent, payload: Int, priority: Int) throws -> OutboxPush {
            OutboxPush(
                activityKey: key, payload: try row.bytes(payload),
                headers: PushHeaders(
                    topic: topic, priority: try row.int(priority) == 10 ? .high : .low, expiration: expiration),
                dueAt: decidedAt, kind: kind)
        }
        return (
            try row.int(0),
            RenewalPushes(
                activityKey: key, generation: Int(try row.int(2)), start: try push(.start, payload: 6, priority: 7),
                end: try push(.end, payload: 8, priority: 9), startReason: try row.text(10), endReason: try row.text(11)
            )
        )
    }

    /// Starts a renewal per decided pair, over the followers the key has now; a key keeps only
    /// its newest finished one.
    static func insertRenewals(
        _ renewals: [RenewalPushes], now: Millis, history: Bool, _ tx: any SQLTransaction
    ) async throws {
        for renewal in renewals {
            try await tx.run(
                "DELETE FROM renewals WHERE activity_key = $1 AND state = 'done'", [.text(renewal.activityKey)])
            guard
                let inserted = try await tx.run(
                    """
                    INSERT INTO renewals (activity_key, generation, topic, expiration, decided_at, start_payload,
                                          start_priority, end_payload, end_priority, created_at, upto, start_reason,
                                          end_reason)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
                            (SELECT COALESCE(MAX(id), 0) FROM followers WHERE activity_key = $1), $11, $12)
                    RETURNING id, upto
                    """,
                    [
                        .text(renewal.activityKey), .int(Int64(renewal.generation)),
                        .optional(renewal.start.headers.topic), .int(renewal.start.headers.expiration),
                        .int(renewal.start.dueAt), .bytes(renewal.start.payload),
                        .int(Int64(renewal.start.headers.priority.apnsValue)), .bytes(renewal.end.payload),
                        .int(Int64(renewal.end.headers.priority.apnsValue)), .int(now), .text(renewal.startReason),
                        .text(renewal.endReason),
                    ]
                ).first
            else { throw SQLRowError("no id from INSERT INTO renewals") }
            if history {
                try await recordRenewal(
                    id: try inserted.int(0), renewal, followersUpTo: try inserted.int(1), now: now, tx)
            }
        }
    }

    public func claimRenewalRange(
        limit: Int, instance: String, lease: Duration, now: Millis
    ) async throws -> RenewalRange? {
        let lock = driver.dialect.lockRowsSkipLocked.isEmpty ? "" : "FOR UPDATE OF r SKIP LOCKED"
        let expires = now + lease.millis
        return try await transaction { tx in
            // A range whose instance died: in doubt, handed out to be counted, never sent again.
            if let row = try await tx.run(
                """
                SELECT \(Self.renewalColumns), r.reached, r.claim_to FROM renewals r
                WHERE r.state = 'running' AND r.claimed_by <> '' AND r.claim_expires_at <= $1
                ORDER BY r.id LIMIT 1 \(lock)
                """,
                [.int(now)]
            ).first {
                let (id, pushes) = try Self.renewal(row)
                let from = try row.int(12), to = try row.int(13)
                try await tx.run(
                    "UPDATE renewals SET claimed_by = $2, claim_expires_at = $3 WHERE id = $1",
                    [.int(id), .text(instance), .int(expires)])
                let targets = try await Self.renewalTargets(
                    pushes.activityKey, after: from, through: to, limit: nil, tx)
                return RenewalRange(
                    renewalID: id, pushes: pushes, fromID: from, toID: to, targets: targets, resumed: true)
            }
            // The oldest renewal with devices left whose key's older pushes are all out: its
            // outbox and its fan-outs decided before it.
            guard
                let row = try await tx.run(
                    """
                    SELECT \(Self.renewalColumns), r.reached, r.upto FROM renewals r
                    WHERE r.state = 'running' AND r.claimed_by = '' AND (r.reached < r.upto OR r.reached < 0)
                      AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.activity_key = r.activity_key AND o.due_at < r.decided_at)
                      AND NOT EXISTS (SELECT 1 FROM fanouts f WHERE f.activity_key = r.activity_key
                                      AND f.state = 'running' AND f.due_at < r.decided_at)
                    ORDER BY r.id LIMIT 1 \(lock)
                    """
                ).first
            else { return nil }
            let (id, pushes) = try Self.renewal(row)
            let reached = try row.int(12), upto = try row.int(13)
            let targets = try await Self.renewalTargets(
                pushes.activityKey, after: reached, through: upto, limit: limit, tx)
            let followers = targets.filter { $0.followerID > 0 }
            let to = followers.count >= limit ? followers.last?.followerID ?? upto : upto
            try await tx.run(
                "UPDATE renewals SET claimed_by = $2, claim_expires_at = $3, claim_to = $4 WHERE id = $1",
                [.int(id), .text(instance), .int(expires), .int(to)])
            return RenewalRange(
                renewalID: id, pushes: pushes, fromID: reached, toID: to, targets: targets, resumed: false)
        }
    }

    /// The devices of a range: the key's own activity when the range starts before the first
    /// follower, then the followers with ids in `(after, through]` that have both tokens and
    /// take their own pushes (a follower on the key's channel has no end of its own to get).
    private static func renewalTargets(
        _ key: String, after: Int64, through: Int64, limit: Int?, _ tx: any SQLTransaction
    ) async throws -> [RenewalTarget] {
        var targets: [RenewalTarget] = []
        if after < 0,
            let row = try await tx.run(
                """
                SELECT push_to_start_token, update_token, environment FROM activities
                WHERE key = $1 AND push_to_start_token IS NOT NULL AND update_token IS NOT NULL
                """,
                [.text(key)]
            ).first
        {
            targets.append(
                RenewalTarget(
                    followerID: 0, startToken: try row.text(0), updateToken: try row.text(1),
                    environment: try environment(row.optionalText(2))))
        }
        let rows = try await tx.run(
            """
            SELECT fo.id, fo.start_token, fo.update_token, fo.environment FROM followers fo
            WHERE fo.activity_key = $1 AND fo.id > $2 AND fo.id <= $3
              AND fo.start_token IS NOT NULL AND fo.update_token IS NOT NULL AND fo.on_channel = 0
            ORDER BY fo.id \(limit.map { "LIMIT \(SQLDialect.limit($0))" } ?? "")
            """,
            [.text(key), .int(max(after, 0)), .int(through)]
        )
        for row in rows {
            targets.append(
                RenewalTarget(
                    followerID: try row.int(0), startToken: HexToken.hex(try row.bytes(1)),
                    updateToken: HexToken.hex(try row.bytes(2)), environment: try environment(row.optionalText(3))))
        }
        return targets
    }

    public func writeRenewalRange(
        _ range: RenewalRange, answers: [RenewalAnswer], instance: String, now: Millis
    ) async throws {
        let history = keepsHistory
        try await transaction { tx in
            let id = SQLValue.int(range.renewalID)
            try await tx.run(
                """
                UPDATE renewals SET reached = $2, claimed_by = '', claim_expires_at = 0
                WHERE id = $1 AND claimed_by = $3
                """,
                [id, .int(range.toID), .text(instance)])
            let written = zip(range.targets, answers).map { target, answer in
                RenewalDelivery(target: target, kind: .start, answer: answer, attempt: 1, wasHeld: false)
            }
            if history {
                try await Self.recordRenewalAnswers(
                    written, renewalID: range.renewalID, pushes: range.pushes, instance: instance, now: now, tx)
            }
            for delivery in written {
                try await Self.writeRenewal(
                    delivery, renewalID: range.renewalID, key: range.pushes.activityKey,
                    step: nil, now: now, tx)
            }
            try await Self.finishRenewal(range.renewalID, now: now, history: history, tx)
        }
    }

    /// Writes what came of one device's renewal push (from its range, or from its `step`).
    private static func writeRenewal(
        _ delivery: RenewalDelivery, renewalID: Int64, key: String, step: RenewalStep.Kind?, now: Millis,
        _ tx: any SQLTransaction
    ) async throws {
        let target = delivery.target
        let id = SQLValue.int(renewalID), device = SQLValue.int(target.followerID)
        func count(_ column: String) async throws {
            try await tx.run("UPDATE renewals SET \(column) = \(column) + 1 WHERE id = $1", [id])
        }
        func upsert(_ kind: RenewalStep.Kind, attempts: Int, dueAt: Millis, held: Bool = false) async throws {
            try await tx.run(
                """
                INSERT INTO renewal_steps (renewal_id, target, activity_key, kind, start_token, update_token, environment,
                                           attempts, due_at, held)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                ON CONFLICT (renewal_id, target) DO UPDATE SET kind = excluded.kind, attempts = excluded.attempts,
                    due_at = excluded.due_at, claimed_by = '', held = excluded.held
                """,
                [
                    id, device, .text(key), .text(kind.rawValue), .text(target.startToken), .text(target.updateToken),
                    .optional(target.environment?.rawValue), .int(Int64(attempts)), .int(dueAt), .int(held ? 1 : 0),
                ])
        }
        func done() async throws {
            try await tx.run("DELETE FROM renewal_steps WHERE renewal_id = $1 AND target = $2", [id, device])
        }
        let attempts = delivery.attempt - 1
        switch delivery.answer.outcome {
        case .started:
            try await count("renewed")
            try await upsert(.end, attempts: 0, dueAt: now)
            // The device now shows the successor: its pushes wait for the update token its app
            // reports, unless the app has reported it already.
            if target.followerID == 0 {
                try await tx.run(
                    "UPDATE activities SET update_token = NULL WHERE key = $1 AND update_token = $2",
                    [.text(key), .text(target.updateToken)])
            } else {
                try await tx.run(
                    "UPDATE followers SET update_token = NULL WHERE activity_key = $1 AND id = $2 AND update_token = $3",
                    [.text(key), device, HexToken.stored(target.updateToken)])
                // A catch-up owed to the predecessor is not the successor's (it would start another).
                try await tx.run("DELETE FROM follower_exceptions WHERE follower_id = $1", [device])
            }
        case .retry(_, let retryAt, let counted):
            try await upsert(step ?? .start, attempts: attempts + (counted ? 1 : 0), dueAt: retryAt)
        case .held(_, let until):
            try await upsert(step ?? .start, attempts: attempts, dueAt: until, held: true)
        case .refused(_, let forgetStartToken):
            try await count("refused")
            try await done()
            guard forgetStartToken else { break }
            if target.followerID == 0 {
                try await tx.run(
                    "UPDATE activities SET push_to_start_token = NULL WHERE key = $1 AND push_to_start_token = $2",
                    [.text(key), .text(target.startToken)])
            } else {
                try await tx.run(
                    "UPDATE followers SET start_token = NULL WHERE activity_key = $1 AND id = $2 AND start_token = $3",
                    [.text(key), device, HexToken.stored(target.startToken)])
            }
        case .inDoubt:
            try await count("in_doubt")
            try await done()
        case .ended, .endFailed:
            try await done()
        }
    }

    /// Marks the renewal done once its cursor has passed every follower and no step is left
    /// (and its followers' entries in the history with it).
    private static func finishRenewal(_ id: Int64, now: Millis, history: Bool, _ tx: any SQLTransaction) async throws {
        let finished = try await tx.run(
            """
            UPDATE renewals SET state = 'done', finished_at = $2
            WHERE id = $1 AND state = 'running' AND claimed_by = '' AND reached >= upto AND reached >= 0
              AND NOT EXISTS (SELECT 1 FROM renewal_steps s WHERE s.renewal_id = renewals.id)
            RETURNING id
            """,
            [.int(id), .int(now)])
        if history, !finished.isEmpty { try await recordRenewalFinished(id, now: now, tx) }
    }

    public func claimRenewalSteps(
        limit: Int, instance: String, lease: Duration, now: Millis
    ) async throws -> [RenewalStep] {
        let lock = driver.dialect.lockRowsSkipLocked.isEmpty ? "" : "FOR UPDATE OF s SKIP LOCKED"
        return try await transaction { tx in
            let rows = try await tx.run(
                """
                SELECT \(Self.renewalColumns), s.target, s.kind, s.start_token, s.update_token, s.environment,
                       s.attempts, s.claimed_by, s.held
                FROM renewal_steps s JOIN renewals r ON r.id = s.renewal_id
                WHERE s.due_at <= $1 ORDER BY s.due_at, s.renewal_id, s.target LIMIT \(SQLDialect.limit(limit)) \(lock)
                """,
                [.int(now)]
            )
            var steps: [RenewalStep] = []
            for row in rows {
                let (id, pushes) = try Self.renewal(row)
                let kindText = try row.text(13)
                let claimedBefore = try row.text(18)
                guard let kind = RenewalStep.Kind(rawValue: kindText) else {
                    throw SQLRowError("renewal step kind '\(kindText)'")
                }
                steps.append(
                    RenewalStep(
                        renewalID: id, pushes: pushes, kind: kind,
                        target: RenewalTarget(
                            followerID: try row.int(12), startToken: try row.text(14), updateToken: try row.text(15),
                            environment: try Self.environment(row.optionalText(16))),
                        attempts: Int(try row.int(17)),
                        // A start claimed before by an instance that died may have reached APNs.
                        inDoubt: kind == .start && !claimedBefore.isEmpty, held: try row.int(19) != 0))
            }
            for step in steps {
                try await tx.run(
                    "UPDATE renewal_steps SET claimed_by = $3, due_at = $4 WHERE renewal_id = $1 AND target = $2",
                    [
                        .int(step.renewalID), .int(step.target.followerID), .text(instance),
                        .int(now + lease.millis),
                    ])
            }
            return steps
        }
    }

    public func writeRenewalSteps(
        _ answers: [(step: RenewalStep, answer: RenewalAnswer)], instance: String, now: Millis
    ) async throws {
        guard !answers.isEmpty else { return }
        let history = keepsHistory
        try await transaction { tx in
            let byRenewal = Dictionary(grouping: answers, by: \.step.renewalID)
            for (id, group) in byRenewal.sorted(by: { $0.key < $1.key }) {
                let written = group.map { step, answer in
                    RenewalDelivery(
                        target: step.target, kind: step.kind, answer: answer, attempt: step.attempts + 1,
                        wasHeld: step.held)
                }
                if history, let pushes = group.first?.step.pushes {
                    try await Self.recordRenewalAnswers(
                        written, renewalID: id, pushes: pushes, instance: instance, now: now, tx)
                }
                for (delivery, (step, _)) in zip(written, group) {
                    try await Self.writeRenewal(
                        delivery, renewalID: id, key: step.pushes.activityKey, step: step.kind, now: now, tx)
                }
            }
            for id in byRenewal.keys.sorted() {
                try await Self.finishRenewal(id, now: now, history: history, tx)
            }
        }
    }

    public func releaseRenewalClaims(instance: String) async throws -> Int {
        try await transaction { tx in
            try await tx.run(
                "UPDATE renewal_steps SET due_at = 0, claimed_by = '' WHERE claimed_by = $1 AND kind = 'end' RETURNING target",
                [.text(instance)]
            ).count
        }
    }

    public func newestRenewal(activityKey: String) async throws -> RenewalStatus? {
        try await transaction { tx in
            guard
                let row = try await tx.run(
                    """
                    SELECT r.generation, r.decided_at, r.state, r.renewed, r.refused, r.in_doubt,
                           (SELECT COUNT(*) FROM renewal_steps s WHERE s.renewal_id = r.id)
                    FROM renewals r WHERE r.activity_key = $1 ORDER BY r.id DESC LIMIT 1
                    """,
                    [.text(activityKey)]
                ).first
            else { return nil }
            return RenewalStatus(
                generation: Int(try row.int(0)), decidedAt: try row.int(1), running: try row.text(2) == "running",
                renewed: Int(try row.int(3)), refused: Int(try row.int(4)), inDoubt: Int(try row.int(5)),
                pendingSteps: Int(try row.int(6)))
        }
    }
}
