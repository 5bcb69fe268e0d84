import Foundation
import Liveline

/// The dispatcher's side of the store: a pass claims the activities with work and writes each
/// step (events applied or superseded, engine state, pushes decided) in one transaction, which
/// holds them by its row locks, not by a lease; only a dead letter's replay leases its one
/// activity (`claimActivity`, then `commitDispatch`).
///
/// An activity is claimable when it is registered, no live lease (a replay's) holds it, and it has
/// work: pending events, or a deadline (a heartbeat, the 8-hour end, a coalesced push) that has
/// come. It must also have somewhere for its next push to go: an update token or a channel, or
/// a push-to-start token while it has not started, or an Android phone's FCM token. Events for an activity without one wait,
/// pending, until a registration brings one. An ended activity is always claimable, so that
/// events arriving after its end are marked superseded rather than left waiting.
extension SQLStore {
    private static let claimable = """
        (a.update_token IS NOT NULL OR a.channel_id IS NOT NULL OR a.fcm_token IS NOT NULL OR a.lifecycle = 'ended'
         OR (a.push_to_start_token IS NOT NULL AND a.lifecycle = 'pending')
         OR EXISTS (SELECT 1 FROM followers fo WHERE fo.activity_key = a.key))
        """

    /// Claims, steps and writes in one transaction: the rows it locks (PostgreSQL's
    /// `FOR UPDATE SKIP LOCKED`, SQLite's write lock) hold the activities for as long as the
    /// steps take, so no lease is written, checked or given back, and a pass costs one commit.
    public func dispatchPass(
        limit: Int, now: Millis, step: @escaping @Sendable (ActivityWork) -> DispatchCommit
    ) async throws -> [DispatchCommit] {
        let lock = driver.dialect.lockRowsSkipLocked.isEmpty ? "" : "FOR UPDATE OF l SKIP LOCKED"
        return try await transaction { tx in
            let keys = try await Self.keysWithWork(limit: limit, now: now, lock: lock, tx)
            guard !keys.isEmpty else { return [] }
            // An expired lease (a replay whose instance died) is taken over: cleared, so that
            // its holder's late commit is refused. Live leases were not selected.
            try await tx.run(
                "UPDATE activity_leases SET instance = '', expires_at = 0 WHERE instance <> '' AND activity_key IN (\(SQLDialect.placeholders(from: 1, count: keys.count)))",
                keys.map(SQLValue.text)
            )
            let commits = try await Self.work(for: keys, tx).map(step)
            try await Self.write(
                commits.sorted { $0.activityKey < $1.activityKey }, releasingLeases: false, dialect: driver.dialect,
                history: keepsHistory, tx)
            return commits
        }
    }

    /// Up to `limit` registered activities with work at `now` (milliseconds), a target, and no
    /// live lease, their lease rows (`l`) locked with `lock`.
    ///
    /// The query starts from the keys with work (pending events, by the partial index on the
    /// mark; deadlines come, by the deadline index) and looks each up by its key, so a pass
    /// costs what it finds. Written the other way round (every lease row, then whether its key
    /// has work), PostgreSQL took each registered activity in turn: 4 ms a pass at 1,000
    /// activities with nothing due, most of the server's time under a stream of webhooks.
    static func keysWithWork(limit: Int, now: Int64, lock: String, _ tx: any SQLTransaction) async throws -> [String] {
        try await tx.run(
            """
            SELECT l.activity_key
            FROM (SELECT p.activity_key AS key FROM activity_leases p WHERE p.pending = 1 AND p.registered = 1
                  UNION SELECT d.key FROM activities d WHERE d.next_deadline <= $1) w
            JOIN activity_leases l ON l.activity_key = w.key
            JOIN activities a ON a.key = w.key
            WHERE (l.instance = '' OR l.expires_at <= $1) AND \(claimable)
            LIMIT \(SQLDialect.limit(limit)) \(lock)
            """,
            [.int(now)]
        ).map { try $0.text(0) }
    }

    public func claimActivity(
        _ key: String, instance: String, lease: Duration, now: Millis
    ) async throws -> ActivityWork? {
        let lock = driver.dialect.lockRowsSkipLocked.replacingOccurrences(of: " SKIP LOCKED", with: "")
        return try await transaction { tx in
            try await tx.run(
                "INSERT INTO activity_leases (activity_key) VALUES ($1) ON CONFLICT (activity_key) DO NOTHING",
                [.text(key)])
            let free = try await tx.run(
                "SELECT activity_key FROM activity_leases WHERE activity_key = $1 AND (instance = '' OR instance = $2 OR expires_at <= $3) \(lock)",
                [.text(key), .text(instance), .int(now)]
            )
            guard !free.isEmpty else { return nil }
            guard let work = try await Self.work(for: [key], tx).first else { return nil }
            try await Self.lease([key], to: instance, until: now + lease.millis, tx)
            return work
        }
    }

    /// The registered activities and pending events of `keys`, in the order of `keys` (unregistered ones left out).
    static func work(for keys: [String], _ tx: any SQLTransaction) async throws -> [ActivityWork] {
        let list = SQLDialect.placeholders(from: 1, count: keys.count)
        var activities: [String: RegisteredActivity] = [:]
        for row in try await tx.run(
            "SELECT \(activityColumns) FROM activities WHERE key IN (\(list))", keys.map(SQLValue.text))
        {
            let activity = try registeredActivity(row)
            activities[activity.activityKey] = activity
        }
        var events: [String: [StoredEvent]] = [:]
        let rows = try await tx.run(
            """
            SELECT sequence, source, event_id, event_type, activity_key, order_key, received_at, body, headers
            FROM inbox_events WHERE state = 'pending' AND activity_key IN (\(list))
            ORDER BY activity_key, order_key, sequence
            """,
            keys.map(SQLValue.text)
        )
        for row in rows {
            let event = InboxEvent(
                source: try row.text(1), eventID: try row.text(2), eventType: try row.text(3),
                activityKey: try row.text(4), orderKey: try row.int(5), receivedAt: try row.int(6),
                body: try row.bytes(7), headers: try StoredHeaders.decode(try row.bytes(8))
            )
            events[event.activityKey, default: []].append(StoredEvent(sequence: try row.int(0), event: event))
        }
        let following = try await keysWithFollowers(keys, tx)
        return keys.compactMap { key in
            activities[key].map {
                ActivityWork(activity: $0, events: events[key] ?? [], hasFollowers: following.contains(key))
            }
        }
    }

    /// Writes steps of leased activities (a replay's), each only while `instance` holds its lease,
    /// and releases the leases. Set-wise, as a pass writes: one statement for the leases, one for
    /// the applied events, one per activity for its state, one for the pushes (per chunk of 256).
    public func commitDispatch(_ commits: [DispatchCommit], instance: String) async throws -> [Bool] {
        guard !commits.isEmpty else { return [] }
        let lock = driver.dialect.lockRowsSkipLocked.replacingOccurrences(of: " SKIP LOCKED", with: "")
        return try await transaction { tx in
            // Rows are locked in key order here and in every other set-wise write, so two
            // transactions (the sender's, another instance's) never wait on each other in a cycle.
            var holders: [String: String] = [:]
            let keys = commits.map(\.activityKey).sorted()
            for chunk in Self.chunks(keys.count) {
                let rows = try await tx.run(
                    """
                    SELECT activity_key, instance FROM activity_leases
                    WHERE activity_key IN (\(SQLDialect.placeholders(from: 1, count: chunk.count))) ORDER BY activity_key \(lock)
                    """,
                    chunk.map { .text(keys[$0]) }
                )
                for row in rows { holders[try row.text(0)] = try row.text(1) }
            }
            let written = commits.map { holders[$0.activityKey] == instance }
            let held = zip(commits, written).filter(\.1).map(\.0).sorted { $0.activityKey < $1.activityKey }
            try await Self.write(held, releasingLeases: true, dialect: driver.dialect, history: keepsHistory, tx)
            return written
        }
    }

    /// Writes steps whose activities this transaction holds, in key order, set-wise.
    private static func write(
        _ held: [DispatchCommit], releasingLeases: Bool, dialect: SQLDialect, history: Bool,
        _ tx: any SQLTransaction
    ) async throws {
        // Applied events, grouped by the step's instant (one group in a pass).
        var applied: [Millis: [Int64]] = [:]
        for commit in held where !commit.applied.isEmpty { applied[commit.now, default: []] += commit.applied }
        for (now, sequences) in applied { try await markApplied(sequences, at: now, dialect: dialect, tx) }
        for commit in held { try await Self.write(commit, releasingLease: releasingLeases && commit.releasesLease, tx) }
        try await Self.writeStates(held, bytesType: dialect.bytes, tx)
        try await Self.insertPushes(
            held.flatMap { commit in
                commit.pushes.indices.map { (commit.pushes[$0], commit.reason(ofPush: $0), commit.now) }
            }, tx)
        for commit in held where !commit.fanOuts.isEmpty {
            try await Self.insertFanOuts(
                commit.fanOuts, reasons: commit.fanOutReasons, now: commit.now, history: history, tx)
        }
        for commit in held where !commit.renewals.isEmpty {
            try await Self.insertRenewals(commit.renewals, now: commit.now, history: history, tx)
        }
        // Activities left with no pending event are no longer looked at for events. Their
        // lease rows are locked since the first statement, so an insert racing this commit
        // waits for it and sets the mark again after.
        let heldKeys = held.map(\.activityKey)
        for chunk in Self.chunks(heldKeys.count) {
            try await tx.run(
                """
                UPDATE activity_leases SET pending = 0
                WHERE pending = 1 AND activity_key IN (\(SQLDialect.placeholders(from: 1, count: chunk.count)))
                  AND NOT EXISTS (SELECT 1 FROM inbox_events e WHERE e.activity_key = activity_leases.activity_key AND e.state = 'pending')
                """,
                chunk.map { .text(heldKeys[$0]) }
            )
        }
    }

    /// Marks events applied at `now`, found by their primary key alone; the `CASE` leaves an
    /// event that is no longer pending as it was. A `state = 'pending'` condition in the `WHERE`
    /// let PostgreSQL walk the partial `inbox_pending` index instead, every pending event for each
    /// statement (5.5–12 ms a call while a backlog lasted), whenever its statistics took the
    /// backlog for empty. On PostgreSQL the sequences are one array parameter: one statement,
    /// one text whatever their number.
    private static func markApplied(
        _ sequences: [Int64], at now: Millis, dialect: SQLDialect, _ tx: any SQLTransaction
    ) async throws {
        let set = """
            UPDATE inbox_events SET state = CASE WHEN state = 'pending' THEN 'applied' ELSE state END,
                   applied_at = CASE WHEN state = 'pending' THEN $1 ELSE applied_at END
            """
        if dialect.kind == .postgres {
            try await tx.run("\(set) WHERE sequence = ANY($2::bigint[])", [.int(now), .array(.ints(sequences))])
            return
        }
        for chunk in chunks(sequences.count) {
            try await tx.run(
                "\(set) WHERE sequence IN (\(SQLDialect.placeholders(from: 2, count: chunk.count)))",
                [.int(now)] + chunk.map { .int(sequences[$0]) }
            )
        }
    }

    /// Each step's engine state, lifecycle, next deadline and error, with one statement per
    /// 256 activities: on PostgreSQL one round trip instead of one per activity, while the
    /// pass's rows are locked.
    private static func writeStates(_ held: [DispatchCommit], bytesType: String, _ tx: any SQLTransaction) async throws
    {
        for chunk in chunks(held.count) {
            let rows = SQLDialect.typedRows(
                chunk.count, types: ["TEXT", "TEXT", bytesType, "BIGINT", "BIGINT", "TEXT"])
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(chunk.count * 6)
            for index in chunk {
                let commit = held[index]
                parameters += [
                    .text(commit.activityKey), .text(commit.lifecycle.rawValue), .bytes(commit.engineState),
                    .optional(commit.nextDeadline), .int(commit.now), .optional(commit.error),
                ]
            }
            try await tx.run(
                """
                WITH step (key, lifecycle, engine_state, next_deadline, updated_at, error) AS (VALUES \(rows))
                UPDATE activities SET lifecycle = step.lifecycle, engine_state = step.engine_state,
                       next_deadline = step.next_deadline, updated_at = step.updated_at,
                       last_error = COALESCE(step.error, activities.last_error)
                FROM step WHERE activities.key = step.key
                """,
                parameters
            )
        }
    }

    /// One step's own writes inside `tx`, once its lease is checked, apart from its state
    /// (``writeStates(_:bytesType:_:)``): what cannot be shared with other steps of the pass.
    private static func write(_ commit: DispatchCommit, releasingLease: Bool, _ tx: any SQLTransaction) async throws {
        let now = SQLValue.int(commit.now)
        for (sequence, reason) in commit.superseded {
            try await tx.run(
                "UPDATE inbox_events SET state = 'superseded', reason = $2, applied_at = $3 WHERE sequence = $1 AND state = 'pending'",
                [.int(sequence), .text(reason), now]
            )
        }
        if !commit.replacedDeadLetters.isEmpty {
            try await tx.run(
                "DELETE FROM dead_letters WHERE id IN (\(SQLDialect.placeholders(from: 1, count: commit.replacedDeadLetters.count)))",
                commit.replacedDeadLetters.map(SQLValue.int)
            )
        }
        if releasingLease {
            try await tx.run(
                "UPDATE activity_leases SET instance = '', expires_at = 0 WHERE activity_key = $1",
                [.text(commit.activityKey)])
        }
    }
}
