import Foundation
import Liveline

/// Fan-outs: one row per push decided for a key with followers, with `reached` (the highest
/// follower id handed out) and `upto` (the highest follower id when it was decided; later
/// followers catch up instead). Ranges in flight are rows of `fanout_claims`; a range whose
/// instance died is handed out again when its claim expires.
///
/// Coalescing: a newer push of the same key and kind supersedes the running fan-out, which hands
/// out no more ranges; the newer one starts once the older one's ranges in flight are answered,
/// so the followers not yet reached get only the newer state, and no device an older one after it.
extension SQLStore {
    /// The newest fan-out of each kind of a key: the pushes a catch-up sends.
    struct NewestFanOuts {
        var start: Int64?
        var update: Int64?
    }

    static func newestFanOuts(keys: [String], _ tx: any SQLTransaction) async throws -> [String: NewestFanOuts] {
        var newest: [String: NewestFanOuts] = [:]
        guard !keys.isEmpty else { return newest }
        let rows = try await tx.run(
            """
            SELECT activity_key, kind, MAX(id) FROM fanouts
            WHERE activity_key IN (\(SQLDialect.placeholders(from: 1, count: keys.count))) GROUP BY activity_key, kind
            """,
            keys.map(SQLValue.text)
        )
        for row in rows {
            let key = try row.text(0)
            let id = try row.int(2)
            var entry = newest[key] ?? NewestFanOuts()
            if try row.text(1) == PushEvent.start.rawValue {
                entry.start = max(entry.start ?? id, id)
            } else {
                entry.update = max(entry.update ?? id, id)
            }
            newest[key] = entry
        }
        return newest
    }

    /// The keys among `keys` whose pushes fan out: those with followers, and those that had
    /// some and still keep a fan-out, so that their newest fan-out stays the newest push and a
    /// follower who joins after the others left catches up with the current state, not the
    /// state of when they left. (Retention deletes the fan-outs of a key nobody follows.)
    static func keysWithFollowers(_ keys: [String], _ tx: any SQLTransaction) async throws -> Set<String> {
        var found: Set<String> = []
        for chunk in chunks(keys.count) {
            let rows = try await tx.run(
                """
                SELECT a.key FROM activities a WHERE a.key IN (\(SQLDialect.placeholders(from: 1, count: chunk.count)))
                  AND (EXISTS (SELECT 1 FROM followers f WHERE f.activity_key = a.key)
                       OR EXISTS (SELECT 1 FROM fanouts o WHERE o.activity_key = a.key))
                """,
                chunk.map { .text(keys[$0]) }
            )
            for row in rows { found.insert(try row.text(0)) }
        }
        return found
    }

    /// Starts a fan-out per push, in order (each with the engine's reason, for its history
    /// entry); each supersedes the running one of its key and kind.
    static func insertFanOuts(
        _ pushes: [OutboxPush], reasons: [String], now: Millis, history: Bool = true, _ tx: any SQLTransaction
    ) async throws {
        for (index, push) in pushes.enumerated() {
            let kind = push.kind == .start ? "kind = 'start'" : "kind <> 'start'"
            let superseded = try await tx.run(
                "UPDATE fanouts SET state = 'superseded', finished_at = $2 WHERE activity_key = $1 AND state = 'running' AND \(kind) RETURNING id",
                [.text(push.activityKey), .int(now)]
            )
            if history { try await recordSuperseded(fanOuts: try superseded.map { try $0.int(0) }, now: now, tx) }
            // Only the newest of a kind is read again (by catch-ups); older ones go once no range
            // of theirs is in flight.
            try await tx.run(
                """
                DELETE FROM fanouts WHERE activity_key = $1 AND state <> 'running' AND \(kind)
                  AND NOT EXISTS (SELECT 1 FROM fanout_claims c WHERE c.fanout_id = fanouts.id)
                """,
                [.text(push.activityKey)]
            )
            let reason = index < reasons.count ? reasons[index] : ""
            guard
                let inserted = try await tx.run(
                    """
                    INSERT INTO fanouts (\(pushColumns), created_at, upto, reason, fcm_message)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, (SELECT COALESCE(MAX(id), 0) FROM followers WHERE activity_key = $1), $10, $11)
                    RETURNING id, upto
                    """,
                    pushValues(push) + [.int(now), .text(reason), .optional(push.android)]
                ).first
            else { throw SQLRowError("no id from INSERT INTO fanouts") }
            if history {
                try await recordFanOut(
                    id: try inserted.int(0), push: push, reason: reason, audience: try inserted.int(1), now: now, tx)
            }
            // With no follower (they all left) it has no range to send: done at once, the push
            // kept for the next follower's catch-up.
            try await tx.run(
                "UPDATE fanouts SET state = 'done', finished_at = $2 WHERE activity_key = $1 AND state = 'running' AND upto = 0",
                [.text(push.activityKey), .int(now)]
            )
        }
    }

    private static let fanOutColumns = "id, \(pushColumns), fcm_message"

    /// Reads `fanOutColumns` into the fan-out's id and push.
    private static func fanOut(_ row: SQLRow) throws -> (id: Int64, push: OutboxPush) {
        var push = try push(row, from: 1)
        push.android = try row.optionalBytes(9)
        return (try row.int(0), push)
    }

    /// Which followers a push goes to, on followers aliased `fo`: iPhones by the push's kind,
    /// and every Android phone when the push has an FCM message.
    private static func audience(_ push: OutboxPush) -> String {
        let ios =
            push.kind == .start
            ? "fo.start_token IS NOT NULL AND fo.update_token IS NULL"
            : "fo.update_token IS NOT NULL AND fo.on_channel = 0"
        return push.android == nil ? ios : "((\(ios)) OR fo.fcm_token IS NOT NULL)"
    }

    public func claimFanOutRange(
        limit: Int, instance: String, lease: Duration, now: Millis, excluding: [Int64], haltedTopics: [String]
    ) async throws -> FanOutRange? {
        let expires = now + lease.millis
        let postgres = !driver.dialect.lockRowsSkipLocked.isEmpty
        return try await transaction { tx in
            // A dead instance's range of a superseded fan-out needs no resending: the newer one
            // reaches every follower.
            try await tx.run(
                """
                DELETE FROM fanout_claims WHERE expires_at <= $1
                  AND NOT EXISTS (SELECT 1 FROM fanouts f WHERE f.id = fanout_claims.fanout_id AND f.state = 'running')
                """,
                [.int(now)]
            )
            while let row = try await tx.run(
                """
                SELECT fanout_id, from_id, to_id, instance FROM fanout_claims WHERE expires_at <= $1
                ORDER BY fanout_id, from_id LIMIT 1 \(postgres ? "FOR UPDATE SKIP LOCKED" : "")
                """,
                [.int(now)]
            ).first {
                let id = try row.int(0), from = try row.int(1), to = try row.int(2)
                guard
                    let fanOut = try await tx.run("SELECT \(Self.fanOutColumns) FROM fanouts WHERE id = $1", [.int(id)])
                        .first
                else { return nil }
                let (_, push) = try Self.fanOut(fanOut)
                // A start is delivered once to an iPhone: one its sender may have sent is not sent
                // again. An Android phone's start is its app posting the notification under the
                // activity's tag, which a second post replaces: those are sent it again.
                var targets = try await Self.targets(push, after: from, through: to, limit: nil, tx)
                if push.kind == .start {
                    targets.removeAll { $0.platform != .android }
                    try await Self.markStartsInDoubt(
                        fanOut: id, from: from, to: to, push: push, sender: try row.text(3), now: now,
                        history: keepsHistory, keepsClaim: !targets.isEmpty, tx)
                    if targets.isEmpty { continue }
                }
                try await tx.run(
                    "UPDATE fanout_claims SET instance = $3, expires_at = $4 WHERE fanout_id = $1 AND from_id = $2",
                    [.int(id), .int(from), .text(instance), .int(expires)]
                )
                try await tx.run("UPDATE fanouts SET resumed = resumed + 1 WHERE id = $1", [.int(id)])
                return FanOutRange(fanOutID: id, fromID: from, toID: to, push: push, targets: targets, resumed: true)
            }
            // The oldest running fan-out with followers left, once no older fan-out of its key
            // and kind has a range in flight.
            guard
                let row = try await tx.run(
                    """
                    SELECT \(Self.fanOutColumns), reached, upto FROM fanouts
                    WHERE state = 'running' AND reached < upto \(Self.notHalted(haltedTopics))
                      AND \(Self.notBehindRenewal("fanouts"))
                      AND NOT EXISTS (SELECT 1 FROM fanout_claims c JOIN fanouts o ON o.id = c.fanout_id
                                      WHERE o.activity_key = fanouts.activity_key AND o.id < fanouts.id
                                        AND (o.kind = 'start') = (fanouts.kind = 'start'))
                    ORDER BY \(excluding.isEmpty ? "" : "CASE WHEN id IN (\(excluding.map(String.init).joined(separator: ", "))) THEN 1 ELSE 0 END, ")id
                    LIMIT 1 \(postgres ? "FOR UPDATE" : "")
                    """
                ).first
            else { return nil }
            let (id, push) = try Self.fanOut(row)
            let reached = try row.int(10), upto = try row.int(11)
            let targets = try await Self.targets(push, after: reached, through: upto, limit: limit, tx)
            let to = targets.count >= limit ? targets.last?.followerID ?? upto : upto
            try await tx.run("UPDATE fanouts SET reached = $2 WHERE id = $1", [.int(id), .int(to)])
            if keepsHistory { try await Self.recordRangeSent(fanOut: id, now: now, tx) }
            try await tx.run(
                "INSERT INTO fanout_claims (fanout_id, from_id, to_id, instance, expires_at) VALUES ($1, $2, $3, $4, $5)",
                [.int(id), .int(reached), .int(to), .text(instance), .int(expires)]
            )
            return FanOutRange(fanOutID: id, fromID: reached, toID: to, push: push, targets: targets, resumed: false)
        }
    }

    /// A condition on `fanouts` that leaves out the fan-outs of `topics` (`''` for none): their
    /// app is halted in every environment, and their followers wait where the cursor is.
    private static func notHalted(_ topics: [String]) -> String {
        guard !topics.isEmpty else { return "" }
        let quoted = topics.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
        return "AND COALESCE(topic, '') NOT IN (\(quoted.joined(separator: ", ")))"
    }

    /// The followers with ids in `(after, through]` that `push` goes to, by id, skipping those
    /// with an exception (their catch-up sends them the newest push).
    private static func targets(
        _ push: OutboxPush, after: Int64, through: Int64, limit: Int?, _ tx: any SQLTransaction
    ) async throws -> [FanOutTarget] {
        let column = push.kind == .start ? "start_token" : "update_token"
        return try await tx.run(
            """
            SELECT fo.id, fo.\(column), fo.environment, fo.fcm_token FROM followers fo
            WHERE fo.activity_key = $1 AND fo.id > $2 AND fo.id <= $3 AND \(audience(push))
              AND NOT EXISTS (SELECT 1 FROM follower_exceptions e WHERE e.follower_id = fo.id)
            ORDER BY fo.id \(limit.map { "LIMIT \(SQLDialect.limit($0))" } ?? "")
            """,
            [.text(push.activityKey), .int(after), .int(through)]
        ).map { row in
            if let fcmToken = try row.optionalText(3) {
                return FanOutTarget(
                    followerID: try row.int(0), token: fcmToken, isStartToken: false, platform: .android)
            }
            return FanOutTarget(
                followerID: try row.int(0), token: HexToken.hex(try row.bytes(1)), isStartToken: push.kind == .start,
                environment: try environment(row.optionalText(2)))
        }
    }

    public func writeFanOut(
        _ range: FanOutRange, answers: [FollowerAnswer], instance: String, now: Millis
    ) async throws -> FanOutProgress {
        try await transaction { tx in
            try await tx.run(
                "DELETE FROM fanout_claims WHERE fanout_id = $1 AND from_id = $2",
                [.int(range.fanOutID), .int(range.fromID)]
            )
            var progress = FanOutProgress(finished: false, receivedAt: nil, pruned: 0, gaveUp: 0)
            let sent = answers.filter { $0.outcome == .sent }.count
            let failed = answers.filter(\.outcome.isFailure).count
            let held = answers.count - sent - failed
            try await tx.run(
                "UPDATE fanouts SET sent = sent + $2, failed = failed + $3 WHERE id = $1",
                [.int(range.fanOutID), .int(Int64(sent)), .int(Int64(failed))]
            )
            // Only the failures: a range's answers are nearly all deliveries, and sorting them
            // all by key and follower was paid on every push.
            try await Self.writeFailures(
                answers.filter { $0.outcome != .sent }.map {
                    ($0.target, $0.outcome, range.fanOutID, range.push.activityKey, 0)
                }, now: now, history: keepsHistory, progress: &progress, tx
            )
            guard let finish = try await Self.finishIfDone(fanOut: range.fanOutID, now: now, tx) else {
                return progress
            }
            (progress.finished, progress.receivedAt) = finish
            guard keepsHistory else { return progress }
            let android = answers.filter { $0.target.platform == .android }
            try await Self.recordRange(
                fanOut: range.fanOutID, sent: sent, failed: failed, held: held,
                android: (android.filter { $0.outcome == .sent }.count, android.filter(\.outcome.isFailure).count),
                instance: instance, finished: progress.finished, now: now, tx)
            return progress
        }
    }

    /// Marks the fan-out done when every range is handed out and answered; whether it is now,
    /// with when its webhook came. Nil when the fan-out is gone.
    static func finishIfDone(
        fanOut id: Int64, now: Millis, _ tx: any SQLTransaction
    ) async throws -> (finished: Bool, receivedAt: Millis?)? {
        guard
            let row = try await tx.run(
                """
                SELECT reached, upto, state, received_at,
                       (SELECT COUNT(*) FROM fanout_claims c WHERE c.fanout_id = fanouts.id) FROM fanouts WHERE id = $1
                """,
                [.int(id)]
            ).first
        else { return nil }
        guard try row.text(2) == "running", try row.int(0) >= row.int(1), try row.int(4) == 0 else {
            return (false, nil)
        }
        try await tx.run("UPDATE fanouts SET state = 'done', finished_at = $2 WHERE id = $1", [.int(id), .int(now)])
        return (true, try row.optionalInt(3))
    }

    /// Writes what failed: gone tokens forgotten (and followers left with none removed), retries
    /// as exceptions, and what will never arrive summed per fan-out and reason.
    private static func writeFailures(
        _ answers: [(
            target: FanOutTarget, outcome: FollowerOutcome, fanOutID: Int64, activityKey: String, attempts: Int
        )],
        now: Millis, history: Bool, progress: inout FanOutProgress, _ tx: any SQLTransaction
    ) async throws {
        var failures: [Int64: [String: (activityKey: String, count: Int, sample: [String], devices: [String])]] = [:]
        let devices = try await sampleDevices(answers.map { ($0.target.followerID, $0.activityKey, $0.outcome) }, tx)
        func fail(_ fanOut: Int64, _ key: String, _ reason: String, _ target: FanOutTarget) {
            var entry = failures[fanOut, default: [:]][reason] ?? (key, 0, [], [])
            entry.count += 1
            if entry.sample.count < summarySample { entry.sample.append(sampleToken(target.token)) }
            if entry.devices.count < summarySample, let device = devices[target.followerID] {
                entry.devices.append(device)
            }
            failures[fanOut, default: [:]][reason] = entry
        }
        if history {
            try await recordFollowerAnswers(
                answers.filter { $0.outcome != .sent }.map {
                    ($0.target.followerID, $0.activityKey, $0.fanOutID, $0.outcome)
                }, now: now, tx)
        }
        // By key, then follower: the count triggers lock each key's count row, so two instances
        // recording failures of the same keys lock them in the same order.
        for answer in answers.sorted(by: {
            ($0.activityKey, $0.target.followerID) < ($1.activityKey, $1.target.followerID)
        }) {
            let id = SQLValue.int(answer.target.followerID)
            switch answer.outcome {
            case .sent:
                continue
            case .tokenGone(let reason):
                let column =
                    answer.target.platform == .android
                    ? "fcm_token" : answer.target.isStartToken ? "start_token" : "update_token"
                // By key and id: the key leads PostgreSQL's primary key.
                let key = SQLValue.text(answer.activityKey)
                try await tx.run(
                    "UPDATE followers SET \(column) = NULL WHERE activity_key = $2 AND id = $1", [id, key])
                let removed = try await tx.run(
                    """
                    DELETE FROM followers WHERE activity_key = $2 AND id = $1
                      AND update_token IS NULL AND start_token IS NULL AND fcm_token IS NULL RETURNING id
                    """,
                    [id, key]
                )
                try await tx.run("DELETE FROM follower_exceptions WHERE follower_id = $1", [id])
                progress.pruned += removed.count
                fail(answer.fanOutID, answer.activityKey, reason, answer.target)
            case .retry(let reason, let error, let retryAt, let maxAttempts):
                if answer.attempts + 1 >= maxAttempts {
                    try await tx.run("DELETE FROM follower_exceptions WHERE follower_id = $1", [id])
                    progress.gaveUp += 1
                    fail(answer.fanOutID, answer.activityKey, reason, answer.target)
                } else {
                    // A late joiner's catch-up that failed stays a catch-up (sent without its alert).
                    try await tx.run(
                        """
                        INSERT INTO follower_exceptions (follower_id, activity_key, state, attempts, due_at, last_error)
                        VALUES ($1, $2, 'retrying', $3, $4, $5)
                        ON CONFLICT (follower_id) DO UPDATE SET
                            state = CASE WHEN follower_exceptions.state = 'late' THEN 'late' ELSE 'retrying' END, attempts = excluded.attempts,
                            due_at = excluded.due_at, last_error = excluded.last_error, claimed_by = ''
                        """,
                        [id, .text(answer.activityKey), .int(Int64(answer.attempts + 1)), .int(retryAt), .text(error)]
                    )
                }
            case .rejected(let reason):
                try await tx.run("DELETE FROM follower_exceptions WHERE follower_id = $1", [id])
                progress.gaveUp += 1
                fail(answer.fanOutID, answer.activityKey, reason, answer.target)
            case .held(let error, let until):
                // Waits, its attempts as they were; a late joiner stays a late joiner.
                try await tx.run(
                    """
                    INSERT INTO follower_exceptions (follower_id, activity_key, state, attempts, due_at, last_error)
                    VALUES ($1, $2, 'retrying', $3, $4, $5)
                    ON CONFLICT (follower_id) DO UPDATE SET due_at = excluded.due_at, last_error = excluded.last_error,
                        claimed_by = ''
                    """,
                    [id, .text(answer.activityKey), .int(Int64(answer.attempts)), .int(until), .text(error)]
                )
            }
        }
        for (fanOut, reasons) in failures.sorted(by: { $0.key < $1.key }) {
            for (reason, entry) in reasons.sorted(by: { $0.key < $1.key }) {
                try await addFailures(
                    .fanOut, id: fanOut, activityKey: entry.activityKey, reason: reason, count: entry.count,
                    tokens: entry.sample, devices: entry.devices, now: now, tx)
            }
        }
    }

    public func claimCatchUps(
        limit: Int, instance: String, lease: Duration, now: Millis
    ) async throws -> [FollowerCatchUp] {
        let lock = driver.dialect.lockRowsSkipLocked.isEmpty ? "" : "FOR UPDATE OF e SKIP LOCKED"
        return try await transaction { tx in
            let rows = try await tx.run(
                """
                SELECT e.follower_id, e.activity_key, e.attempts, fo.update_token, fo.start_token, e.state, fo.environment,
                       e.claimed_by, fo.fcm_token
                FROM follower_exceptions e JOIN followers fo ON fo.activity_key = e.activity_key AND fo.id = e.follower_id
                WHERE e.due_at <= $1
                  AND NOT EXISTS (SELECT 1 FROM renewals rb WHERE rb.activity_key = e.activity_key AND rb.state = 'running')
                ORDER BY e.due_at, e.follower_id LIMIT \(SQLDialect.limit(limit)) \(lock)
                """,
                [.int(now)]
            )
            guard !rows.isEmpty else { return [] }
            let keys = Array(Set(try rows.map { try $0.text(1) })).sorted()
            let newest = try await Self.newestFanOuts(keys: keys, tx)
            let ids = newest.values.flatMap { [$0.start, $0.update].compactMap { $0 } }
            var pushes: [Int64: OutboxPush] = [:]
            for chunk in Self.chunks(ids.count) {
                for row in try await tx.run(
                    "SELECT \(Self.fanOutColumns) FROM fanouts WHERE id IN (\(SQLDialect.placeholders(from: 1, count: chunk.count)))",
                    chunk.map { .int(ids[$0]) }
                ) {
                    let (id, push) = try Self.fanOut(row)
                    pushes[id] = push
                }
            }
            // A late joiner's push leaves out the alert of an event from before it joined; a
            // retry is the push the follower missed, news when it was decided, and keeps it.
            var silent: [Int64: OutboxPush] = [:]
            func lateCatchUp(_ id: Int64, _ push: OutboxPush) throws -> OutboxPush {
                guard push.kind != .start else { return push }
                if let known = silent[id] { return known }
                var quiet = push
                quiet.payload = try CatchUpPayload.withoutAlert(push.payload)
                silent[id] = quiet
                return quiet
            }
            var catchUps: [FollowerCatchUp] = []
            var nothing: [Int64] = []
            var inDoubt: [Int64] = []
            for row in rows {
                let follower = try row.int(0), key = try row.text(1)
                let update = try row.optionalBytes(3), start = try row.optionalBytes(4)
                // A start claimed before and never answered may have reached the phone.
                if update == nil, start != nil, try !row.text(7).isEmpty {
                    inDoubt.append(follower)
                    continue
                }
                let environment = try Self.environment(row.optionalText(6))
                let target: FanOutTarget?
                let fanOut: Int64?
                if let fcmToken = try row.optionalText(8) {
                    // An Android phone is sent the newest message that has one, whatever its kind.
                    target = FanOutTarget(
                        followerID: follower, token: fcmToken, isStartToken: false, platform: .android)
                    fanOut = [newest[key]?.update, newest[key]?.start].compactMap { $0 }.first {
                        pushes[$0]?.android != nil
                    }
                } else if let update {
                    target = FanOutTarget(
                        followerID: follower, token: HexToken.hex(update), isStartToken: false, environment: environment
                    )
                    fanOut = newest[key]?.update
                } else if let start {
                    target = FanOutTarget(
                        followerID: follower, token: HexToken.hex(start), isStartToken: true, environment: environment)
                    fanOut = newest[key]?.start
                } else {
                    target = nil
                    fanOut = nil
                }
                guard let target, let fanOut, let push = pushes[fanOut] else {
                    nothing.append(follower)
                    continue
                }
                let sent = try row.text(5) == "late" && target.platform == .ios ? try lateCatchUp(fanOut, push) : push
                catchUps.append(
                    FollowerCatchUp(
                        target: target, activityKey: key, fanOutID: fanOut, push: sent, attempts: Int(try row.int(2))))
            }
            try await Self.markCatchUpsInDoubt(inDoubt, tx)
            if !nothing.isEmpty {
                try await tx.run(
                    "DELETE FROM follower_exceptions WHERE follower_id IN (\(SQLDialect.placeholders(from: 1, count: nothing.count)))",
                    nothing.map(SQLValue.int)
                )
            }
            for chunk in Self.chunks(catchUps.count) {
                try await tx.run(
                    """
                    UPDATE follower_exceptions SET claimed_by = $1, due_at = $2
                    WHERE follower_id IN (\(SQLDialect.placeholders(from: 3, count: chunk.count)))
                    """,
                    [.text(instance), .int(now + lease.millis)]
                        + chunk.map { .int(catchUps[$0].target.followerID) }
                )
            }
            return catchUps
        }
    }

    public func writeCatchUps(
        _ answers: [(catchUp: FollowerCatchUp, outcome: FollowerOutcome)], now: Millis
    ) async throws -> FanOutProgress {
        guard !answers.isEmpty else { return FanOutProgress(finished: false, receivedAt: nil, pruned: 0, gaveUp: 0) }
        return try await transaction { tx in
            var progress = FanOutProgress(finished: false, receivedAt: nil, pruned: 0, gaveUp: 0)
            if keepsHistory {
                try await Self.recordFollowerAnswers(
                    answers.filter { $0.outcome == .sent }.map {
                        ($0.catchUp.target.followerID, $0.catchUp.activityKey, $0.catchUp.fanOutID, $0.outcome)
                    }, now: now, tx)
            }
            let newest = try await Self.newestFanOuts(keys: Array(Set(answers.map(\.catchUp.activityKey))).sorted(), tx)
            for (catchUp, outcome) in answers where outcome == .sent {
                let id = SQLValue.int(catchUp.target.followerID)
                let kinds = newest[catchUp.activityKey]
                let current =
                    catchUp.target.platform == .android
                    ? kinds?.update ?? kinds?.start : catchUp.target.isStartToken ? kinds?.start : kinds?.update
                if current == nil || current == catchUp.fanOutID {
                    try await tx.run("DELETE FROM follower_exceptions WHERE follower_id = $1", [id])
                } else {
                    // A newer push was decided while this one was on its way: send that one now
                    // (a late joiner's without its alert, a retry's with it).
                    try await tx.run(
                        "UPDATE follower_exceptions SET attempts = 0, due_at = $2, claimed_by = '' WHERE follower_id = $1",
                        [id, .int(now)]
                    )
                }
            }
            try await Self.writeFailures(
                answers.filter { $0.outcome != .sent }.map {
                    ($0.catchUp.target, $0.outcome, $0.catchUp.fanOutID, $0.catchUp.activityKey, $0.catchUp.attempts)
                },
                now: now, history: keepsHistory, progress: &progress, tx
            )
            return progress
        }
    }

    public func releaseFanOutClaims(instance: String) async throws -> Int {
        try await transaction { tx in
            let ranges = try await tx.run(
                "UPDATE fanout_claims SET expires_at = 0 WHERE instance = $1 RETURNING fanout_id", [.text(instance)]
            )
            let catchUps = try await tx.run(
                // Still marked as claimed: a start among them may have been sent (see markCatchUpsInDoubt).
                "UPDATE follower_exceptions SET due_at = 0 WHERE claimed_by = $1 RETURNING follower_id",
                [.text(instance)]
            )
            return ranges.count + catchUps.count
        }
    }
}
