import Foundation
import Liveline

/// The delivery history (`push_history`): written by the outbox's, the fan-outs' and the
/// renewals' own transactions (the renewals': `SQLStore+RenewalHistory`), read by the
/// operations API.
///
/// - An outbox push gets a row per answered attempt, copied from its outbox row (kind,
///   priority, the engine's reason, payload, when it was stored and claimed, the instance that
///   claimed it) beside APNs' answer, with one statement per 256 answers. A push held while its
///   app is halted gets a row when it is first held, and again only when APNs refuses it (as
///   the probe): while it waits, the passes that hold it without sending add nothing.
/// - A fan-out gets one row when it is decided, updated as its ranges are answered (counts of
///   followers sent, failed and held, the instances that sent them, the latest answer) and when it finishes or a newer push
///   supersedes it: a few statements per range of 1,000 followers, none per follower.
/// - A follower gets a row of its own (`follower_pushes`) only where it differs from its
///   fan-out: a failure or a hold in a range, or a catch-up's answer (those are sent one by one
///   anyway, as are a renewal's).
///   Its last push is the newer of that row and the newest fan-out that reached it.
extension SQLStore {
    // MARK: Writing

    /// The outbox's answers of one transaction, before they change the outbox rows they copy.
    static func recordAnswers(_ outcomes: [PushOutcome], _ tx: any SQLTransaction) async throws {
        for chunk in chunks(outcomes.count) {
            let rows = (0..<chunk.count).map { row in
                let p = row * 9
                return "(CAST($\(p + 1) AS BIGINT), CAST($\(p + 2) AS BIGINT), CAST($\(p + 3) AS BIGINT), "
                    + "CAST($\(p + 4) AS TEXT), CAST($\(p + 5) AS TEXT), CAST($\(p + 6) AS TEXT), "
                    + "CAST($\(p + 7) AS TEXT), CAST($\(p + 8) AS BIGINT), CAST($\(p + 9) AS TEXT))"
            }.joined(separator: ", ")
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(chunk.count * 9)
            for index in chunk {
                let (id, answer, outcome, error, maxAttempts) = historyColumns(outcomes[index])
                // APNs' attempts keep NULL, as every row before FCM did.
                let platform = answer?.platform == .android ? Platform.android.rawValue : nil
                parameters += [
                    .int(id), .optional(answer?.at), .optional(answer.map { Int64($0.status) }),
                    .optional(answer?.reason), .optional(answer?.apnsID), .text(outcome.rawValue), .optional(error),
                    .int(maxAttempts), .optional(platform),
                ]
            }
            // A failed attempt that was the last one is a dead letter. A hold without APNs' answer
            // sent nothing (no `sent_at`), and adds no row while the push's newest is a hold.
            try await tx.run(
                """
                WITH answer (id, answered_at, status, apns_reason, apns_id, outcome, error, max_attempts, platform) AS (VALUES \(rows))
                INSERT INTO push_history (activity_key, kind, priority, reason, payload, stored_at, sent_at, answered_at,
                                          status, apns_reason, apns_id, instance, outcome, error, attempt, outbox_id,
                                          platform)
                SELECT o.activity_key, o.kind, o.priority, o.reason, o.payload, o.stored_at,
                       CASE WHEN o.claimed_at = 0 OR (answer.outcome = 'held' AND answer.status IS NULL) THEN NULL
                            ELSE o.claimed_at END,
                       answer.answered_at, answer.status, answer.apns_reason, answer.apns_id, o.claimed_by,
                       CASE WHEN answer.outcome = 'retrying' AND o.attempts + 1 >= answer.max_attempts THEN 'dead-letter'
                            ELSE answer.outcome END,
                       answer.error, o.attempts + 1, o.id, answer.platform
                FROM outbox o JOIN answer ON o.id = answer.id
                WHERE NOT (answer.outcome = 'held' AND answer.status IS NULL AND EXISTS (
                    SELECT 1 FROM push_history h WHERE h.outbox_id = o.id AND h.outcome = 'held'
                      AND h.id = (SELECT MAX(p.id) FROM push_history p WHERE p.outbox_id = o.id)))
                ORDER BY o.id
                """,
                parameters
            )
        }
    }

    /// What the history keeps of one outcome: the push's id, APNs' answer, what became of it,
    /// the error, and the attempts after which a failure is a dead letter.
    private static func historyColumns(
        _ outcome: PushOutcome
    ) -> (Int64, PushAnswer?, PushRecord.Outcome, String?, Int64) {
        switch outcome {
        case .sent(let id, let answer):
            return (id, answer, .delivered, nil, .max)
        case .failed(let id, let answer, let error, _, let maxAttempts):
            // An attempt that never left (its activity had no token) is waiting, not failing.
            let outcome: PushRecord.Outcome = maxAttempts == .max && answer == nil ? .noTarget : .retrying
            return (id, answer, outcome, error, Int64(clamping: maxAttempts))
        case .undeliverable(let id, let answer, let error, let forgetToken, _):
            return (id, answer, forgetToken ? .tokenGone : .deadLetter, error, .max)
        case .held(let id, let answer, let error, _):
            return (id, answer, .held, error, .max)
        }
    }

    /// A fan-out's entry, as its step writes it.
    static func recordFanOut(
        id: Int64, push: OutboxPush, reason: String, audience: Int64, now: Millis, _ tx: any SQLTransaction
    ) async throws {
        try await tx.run(
            """
            INSERT INTO push_history (activity_key, kind, priority, reason, payload, stored_at, outcome, fanout_id, audience)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """,
            [
                .text(push.activityKey), .text(push.kind.rawValue), .int(Int64(push.headers.priority.apnsValue)),
                .text(reason), .bytes(push.payload), .int(now),
                .text((audience == 0 ? PushRecord.Outcome.noFollowers : .fanningOut).rawValue), .int(id),
                .int(audience),
            ]
        )
    }

    /// Running fan-outs a newer push replaced.
    static func recordSuperseded(fanOuts ids: [Int64], now: Millis, _ tx: any SQLTransaction) async throws {
        guard !ids.isEmpty else { return }
        try await tx.run(
            """
            UPDATE push_history SET outcome = 'superseded', answered_at = COALESCE(answered_at, $1)
            WHERE fanout_id IN (\(SQLDialect.placeholders(from: 2, count: ids.count)))
            """,
            [.int(now)] + ids.map(SQLValue.int)
        )
    }

    /// A range handed out: the fan-out's first one is when it was sent.
    static func recordRangeSent(fanOut id: Int64, now: Millis, _ tx: any SQLTransaction) async throws {
        try await tx.run(
            "UPDATE push_history SET sent_at = $2 WHERE fanout_id = $1 AND sent_at IS NULL", [.int(id), .int(now)])
    }

    /// A range's answers: counted (sent, failed, held while the app is halted; of them, Android
    /// phones' sent and failed), the instance named, and the fan-out's end when it came.
    static func recordRange(
        fanOut id: Int64, sent: Int, failed: Int, held: Int = 0, android: (sent: Int, failed: Int) = (0, 0),
        instance: String, finished: Bool, now: Millis, _ tx: any SQLTransaction
    ) async throws {
        try await tx.run(
            """
            UPDATE push_history SET sent = sent + $2, failed = failed + $3, held = held + $7, answered_at = $4,
                   android_sent = android_sent + $8, android_failed = android_failed + $9,
                   instance = \(instanceAdded("$5")),
                   outcome = CASE WHEN $6 = 1 THEN 'fanned-out' ELSE outcome END
            WHERE fanout_id = $1
            """,
            [
                .int(id), .int(Int64(sent)), .int(Int64(failed)), .int(now), .text(instance), .int(finished ? 1 : 0),
                .int(Int64(held)), .int(Int64(android.sent)), .int(Int64(android.failed)),
            ]
        )
    }

    /// An entry's `instance` (the instances that sent it, by spaces) with the one in
    /// `placeholder` added, once.
    static func instanceAdded(_ placeholder: String) -> String {
        """
        CASE WHEN instance = '' THEN \(placeholder)
             WHEN (' ' || instance || ' ') LIKE ('% ' || \(placeholder) || ' %') THEN instance
             ELSE instance || ' ' || \(placeholder) END
        """
    }

    /// One follower's own answer (a failure, a hold, or a catch-up's): it replaces the follower's
    /// older one.
    static func recordFollowerAnswers(
        _ answers: [(followerID: Int64, activityKey: String, fanOutID: Int64, outcome: FollowerOutcome)],
        now: Millis, _ tx: any SQLTransaction
    ) async throws {
        for answer in answers.sorted(by: { $0.followerID < $1.followerID }) {
            let (outcome, reason): (String, String?) =
                switch answer.outcome {
                case .sent: ("delivered", nil)
                case .tokenGone(let reason), .rejected(let reason): ("failed", reason)
                case .retry(let reason, _, _, _): ("failed", reason)
                case .held: ("held", nil)
                }
            try await tx.run(
                """
                INSERT INTO follower_pushes (follower_id, activity_key, fanout_id, outcome, reason, answered_at)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (follower_id) DO UPDATE SET activity_key = excluded.activity_key, fanout_id = excluded.fanout_id,
                    outcome = excluded.outcome, reason = excluded.reason, answered_at = excluded.answered_at,
                    history_id = NULL
                """,
                [
                    .int(answer.followerID), .text(answer.activityKey), .int(answer.fanOutID), .text(outcome),
                    .optional(reason), .int(now),
                ]
            )
        }
    }

    /// The devices of a few failed followers per key and reason (as many as a failure summary
    /// samples), read before the failures are written (a gone token may remove its follower).
    static func sampleDevices(
        _ answers: [(followerID: Int64, activityKey: String, outcome: FollowerOutcome)], _ tx: any SQLTransaction
    ) async throws -> [Int64: String] {
        var picked: [String: [String: [Int64]]] = [:]
        for answer in answers {
            let reason: String
            switch answer.outcome {
            case .sent, .held: continue
            case .tokenGone(let why), .rejected(let why), .retry(let why, _, _, _): reason = why
            }
            if picked[answer.activityKey, default: [:]][reason, default: []].count < 5 {
                picked[answer.activityKey, default: [:]][reason, default: []].append(answer.followerID)
            }
        }
        var devices: [Int64: String] = [:]
        for (key, reasons) in picked.sorted(by: { $0.key < $1.key }) {
            let ids = Array(Set(reasons.values.joined())).sorted()
            for row in try await tx.run(
                """
                SELECT id, device FROM followers WHERE activity_key = $1
                  AND id IN (\(SQLDialect.placeholders(from: 2, count: ids.count)))
                """,
                [.text(key)] + ids.map(SQLValue.int)
            ) {
                devices[try row.int(0)] = try row.text(1)
            }
        }
        return devices
    }

    // MARK: Reading

    static let recordColumns = """
        h.id, h.activity_key, h.kind, h.priority, h.reason, h.payload, h.stored_at, h.sent_at, h.answered_at, h.status,
        h.apns_reason, h.apns_id, h.instance, h.outcome, h.error, h.attempt, h.fanout_id, h.sent, h.failed, h.held,
        h.renewal_id, h.audience, h.android_sent, h.android_failed, h.platform
        """

    /// Reads ``recordColumns``: a fan-out's tally, or a renewal's for its entries to the followers.
    static func record(_ row: SQLRow) throws -> PushRecord {
        let kindText = try row.text(2)
        guard let kind = PushEvent(rawValue: kindText) else { throw SQLRowError("history kind '\(kindText)'") }
        let outcomeText = try row.text(13)
        guard let outcome = PushRecord.Outcome(rawValue: outcomeText) else {
            throw SQLRowError("history outcome '\(outcomeText)'")
        }
        let instances = try row.text(12).split(separator: " ").map(String.init)
        let renewal = try row.optionalInt(20)
        let tallied = try row.optionalInt(16) ?? (row.int(21) > 0 ? renewal : nil)
        return PushRecord(
            id: try row.int(0), activityKey: try row.text(1), kind: kind, priority: Int(try row.int(3)),
            reason: try row.text(4), payload: try row.bytes(5), storedAt: try row.int(6),
            sentAt: try row.optionalInt(7),
            answeredAt: try row.optionalInt(8), status: try row.optionalInt(9).map { Int($0) },
            apnsReason: try row.optionalText(10), apnsID: try row.optionalText(11), instances: instances,
            outcome: outcome, error: try row.optionalText(14), attempt: Int(try row.int(15)),
            fanOut: try tallied.map {
                PushRecord.FanOutTally(
                    id: $0, sent: Int(try row.int(17)), failed: Int(try row.int(18)), held: Int(try row.int(19)),
                    android: .init(sent: Int(try row.int(22)), failed: Int(try row.int(23))))
            },
            renewal: renewal,
            platform: try row.optionalText(24) == Platform.android.rawValue ? .android : .ios
        )
    }

    public func pushHistory(activityKey: String, before: Int64?, limit: Int) async throws -> [PushRecord] {
        try await transaction { tx in
            var records = try await tx.run(
                """
                SELECT \(Self.recordColumns) FROM push_history h
                WHERE h.activity_key = $1 AND h.id < $2 ORDER BY h.id DESC LIMIT \(SQLDialect.limit(limit))
                """,
                [.text(activityKey), .int(before ?? .max)]
            ).map(Self.record)
            let fanOuts = try await Self.failureSummaries(
                .fanOut, of: records.filter { $0.renewal == nil }.compactMap { $0.fanOut?.id }, tx)
            let renewals = try await Self.failureSummaries(
                .renewal, of: records.filter { $0.renewal != nil && $0.fanOut != nil }.map(\.id), tx)
            for index in records.indices {
                guard let tally = records[index].fanOut else { continue }
                let failures = records[index].renewal == nil ? fanOuts[tally.id] : renewals[records[index].id]
                records[index].fanOut?.failures = failures ?? []
            }
            return records
        }
    }

    public func followerLastPush(device: String, activityKey: String) async throws -> FollowerLastPush? {
        try await transaction { tx in
            guard
                let follower = try await tx.run(
                    """
                    SELECT fo.id, fo.update_token IS NOT NULL, e.last_error, e.due_at, p.fanout_id, p.outcome, p.reason,
                           p.answered_at, e.state, p.history_id
                    FROM followers fo
                    LEFT JOIN follower_exceptions e ON e.follower_id = fo.id
                    LEFT JOIN follower_pushes p ON p.follower_id = fo.id AND p.activity_key = fo.activity_key
                    WHERE fo.activity_key = $1 AND fo.device = $2
                    """,
                    [.text(activityKey), .text(device)]
                ).first
            else { return nil }
            let id = try follower.int(0)
            let fanOutPush = try await Self.fanOutLastPush(follower, activityKey: activityKey, tx)
            // Its own last answer is a renewal's: the last push, unless a newer fan-out reached it.
            guard let history = try follower.optionalInt(9), fanOutPush.map({ $0.push.id < history }) ?? true,
                let renewal = try await Self.renewalLastPush(
                    follower: id, history: history, outcome: try follower.text(5), reason: try follower.optionalText(6),
                    answeredAt: try follower.optionalInt(7), tx)
            else { return fanOutPush }
            return renewal
        }
    }

    /// A follower's last push by its fan-outs (`follower` is the row `followerLastPush` reads).
    private static func fanOutLastPush(
        _ follower: SQLRow, activityKey: String, _ tx: any SQLTransaction
    ) async throws -> FollowerLastPush? {
        let id = try follower.int(0)
        let updating = try follower.int(1) != 0
        let kind = updating ? "kind <> 'start'" : "kind = 'start'"
        // The newest fan-out of its kind it was in the audience of, and whether that one has
        // reached it (a range below its id handed out and answered).
        let reach = try await tx.run(
            """
            SELECT h.fanout_id, f.reached, f.state,
                   (SELECT COUNT(*) FROM fanout_claims c WHERE c.fanout_id = h.fanout_id AND c.from_id < $2 AND c.to_id >= $2)
            FROM push_history h LEFT JOIN fanouts f ON f.id = h.fanout_id
            WHERE h.activity_key = $1 AND h.fanout_id IS NOT NULL AND h.audience >= $2 AND h.\(kind)
            ORDER BY h.fanout_id DESC LIMIT 1
            """,
            [.text(activityKey), .int(id)]
        ).first
        // A renewal's answer is no fan-out's.
        let ownFanOut = try follower.optionalInt(9) == nil ? follower.optionalInt(4) : nil
        var fanOut = try reach?.int(0)
        let state = try follower.optionalText(8)
        if fanOut == nil, ownFanOut == nil, state != nil {
            // Joined after every fan-out: its catch-up is the newest push of its kind.
            fanOut = try await tx.run(
                "SELECT MAX(fanout_id) FROM push_history WHERE activity_key = $1 AND \(kind)",
                [.text(activityKey)]
            ).first?.optionalInt(0)
        }
        // Its own answer, if it is about the newest push that went to it.
        let own = ownFanOut.flatMap { own in fanOut.map { own >= $0 } ?? true } ?? false
        guard let chosen = own ? ownFanOut : fanOut,
            let row = try await tx.run(
                "SELECT \(recordColumns) FROM push_history h WHERE h.fanout_id = $1", [.int(chosen)]
            ).first
        else { return nil }
        let push = try record(row)
        var outcome: FollowerLastPush.Outcome
        var answeredAt: Millis? = push.answeredAt
        if own {
            answeredAt = try follower.optionalInt(7)
            switch try follower.text(5) {
            case "delivered":
                outcome = .delivered
            case "held":
                // Held, and no longer waiting (its wait is below while it lasts): the key's
                // next push is its next.
                outcome = .queued
                answeredAt = nil
            default:
                outcome = .failed(reason: try follower.optionalText(6) ?? "unknown")
            }
        } else if let reach, try reach.optionalInt(1).map({ $0 < id }) ?? false || reach.int(3) > 0,
            try reach.optionalText(2) == "running"
        {
            outcome = .queued
            answeredAt = nil
        } else {
            outcome = .delivered
        }
        if state == "in-doubt" {
            outcome = .inDoubt
        } else if let due = try follower.optionalInt(3) {
            let error = try follower.optionalText(2)
            // A catch-up not tried yet is on its way, not failing; a follower whose own last
            // answer is a hold waits for its app's sending to resume, whichever push it waits with.
            if try follower.optionalText(5) == "held" {
                outcome = .held(error: error, until: due)
                answeredAt = try follower.optionalInt(7)
            } else if state == "late", error == nil {
                outcome = .queued
                answeredAt = nil
            } else {
                outcome = .retrying(error: error, dueAt: due)
            }
        }
        return FollowerLastPush(push: push, outcome: outcome, answeredAt: answeredAt)
    }

    public func prunePushHistory(before cutoff: Millis, limit: Int) async throws -> PruneBatch {
        try await transaction(durability: .processCrash) { tx in
            let clock = ContinuousClock()
            let started = clock.now
            let entries = try await tx.run(
                """
                DELETE FROM push_history WHERE id IN (
                    SELECT id FROM push_history WHERE stored_at < $1 AND outcome <> 'fanning-out'
                    ORDER BY stored_at, id LIMIT \(SQLDialect.limit(limit))
                ) RETURNING id, renewal_id
                """,
                [.int(cutoff)]
            )
            // A renewal's entry for the followers takes its failure summaries with it.
            let renewals = try entries.filter { try $0.optionalInt(1) != nil }.map { try $0.int(0) }
            for chunk in Self.chunks(renewals.count) {
                try await tx.run(
                    """
                    DELETE FROM renewal_failures
                    WHERE history_id IN (\(SQLDialect.placeholders(from: 1, count: chunk.count)))
                    """,
                    chunk.map { .int(renewals[$0]) })
            }
            let answers = try await tx.run(
                """
                DELETE FROM follower_pushes WHERE follower_id IN (
                    SELECT follower_id FROM follower_pushes WHERE answered_at < $1 ORDER BY answered_at
                    LIMIT \(SQLDialect.limit(limit))
                ) RETURNING follower_id
                """,
                [.int(cutoff)]
            ).count
            return PruneBatch(rows: entries.count + answers, held: started.duration(to: clock.now))
        }
    }
}
