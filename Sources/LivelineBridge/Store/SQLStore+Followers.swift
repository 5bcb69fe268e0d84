import Foundation
import Liveline

/// A key's followers: one compact row each (tokens as bytes), and an exception row only for a
/// follower that must catch up (it joined, or gained a token, after the story began).
extension SQLStore {
    public func putFollowers(_ followers: [Follower], activityKey: String, now: Millis) async throws -> [FollowerChange]
    {
        guard !followers.isEmpty else { return [] }
        let postgres = !driver.dialect.lockRowsSkipLocked.isEmpty
        return try await transaction { tx in
            // On PostgreSQL a dispatch step that decides a push updates the activity's row before
            // it counts the followers its fan-out covers: holding that row here, the step either
            // counts these followers or has committed its fan-out before they look for it, so
            // none joins unseen between the two. (SQLite's one writer orders them anyway.)
            //
            // Every writer of a key's followers takes that row first, so while this transaction
            // holds it no other can store a device the lookup below did not find: new devices
            // are plain inserts, without the upsert's per-row conflict check. (Without the row,
            // a key deleted meanwhile, every write stays an upsert.)
            var locked = false
            if postgres {
                let held = try await tx.run(
                    "SELECT key FROM activities WHERE key = $1 FOR UPDATE", [.text(activityKey)])
                locked = !held.isEmpty
            }
            let newest = try await Self.newestFanOuts(keys: [activityKey], tx)[activityKey] ?? NewestFanOuts()
            var changes: [FollowerChange] = []
            changes.reserveCapacity(followers.count)
            // PostgreSQL takes the whole batch in one statement of each kind, its columns bound as
            // arrays; SQLite, whose statements are calls in this process, in chunks of an IN list.
            for chunk in postgres ? [followers.indices] : Self.chunks(followers.count) {
                let devices = chunk.map { followers[$0].device }
                var existing: [String: Follower] = [:]
                let rows =
                    postgres
                    ? try await tx.run(
                        // One probe of the (activity_key, device) key per device, whatever the
                        // statistics say: on a table filling up faster than it is analysed, the
                        // planner took the key's followers for a few hundred rows and read all of
                        // them for each batch (`device = ANY(…)` as a filter, or a hash join), so
                        // an import's batches grew slower with every batch before them. `LIMIT 1`
                        // keeps the subquery a probe per device: the planner cannot fold it into
                        // a join.
                        """
                        SELECT f.device, f.update_token, f.start_token, f.on_channel, f.environment, f.fcm_token
                        FROM unnest($2::text[]) AS batch (device)
                        CROSS JOIN LATERAL (
                            SELECT * FROM followers WHERE activity_key = $1 AND device = batch.device LIMIT 1
                        ) f
                        """,
                        [.text(activityKey), .array(.texts(devices))]
                    )
                    : try await tx.run(
                        """
                        SELECT device, update_token, start_token, on_channel, environment, fcm_token FROM followers
                        WHERE activity_key = $1 AND device IN (\(SQLDialect.placeholders(from: 2, count: devices.count)))
                        """,
                        [.text(activityKey)] + devices.map(SQLValue.text)
                    )
                for row in rows {
                    let follower = try Self.follower(row)
                    existing[follower.device] = follower
                }
                // The last of a device's entries in one call wins, as if sent one after another.
                var last: [String: Int] = [:]
                for index in chunk { last[followers[index].device] = index }
                // Only what changes is written: a follower stored exactly so keeps its row.
                let written = chunk.filter {
                    last[followers[$0].device] == $0 && existing[followers[$0].device] != followers[$0]
                }
                let changed = written.map { followers[$0] }
                var ids: [SQLRow] = []
                if !changed.isEmpty {
                    if !postgres {
                        ids = try await Self.upsertFollowersValues(changed, activityKey: activityKey, tx)
                    } else if locked {
                        let fresh = changed.filter { existing[$0.device] == nil }
                        let known = changed.filter { existing[$0.device] != nil }
                        if !fresh.isEmpty {
                            ids += try await Self.writeFollowersUnnest(
                                fresh, activityKey: activityKey, upsert: false, tx)
                        }
                        if !known.isEmpty {
                            ids += try await Self.writeFollowersUnnest(
                                known, activityKey: activityKey, upsert: true, tx)
                        }
                    } else {
                        ids = try await Self.writeFollowersUnnest(changed, activityKey: activityKey, upsert: true, tx)
                    }
                }
                var idOf: [String: Int64] = [:]
                for row in ids { idOf[try row.text(1)] = try row.int(0) }
                var late: [Int64] = []
                var settled: [Int64] = []
                for index in chunk {
                    let follower = followers[index]
                    let before = existing[follower.device]
                    changes.append(before == nil ? .created : before == follower ? .unchanged : .updated)
                    guard last[follower.device] == index, let id = idOf[follower.device], before != follower else {
                        continue
                    }
                    // Catch up only with a token that is new to this follower and that the
                    // story has already pushed to (its start, or an update).
                    let catchesUp: Bool
                    if let token = follower.fcmToken {
                        // An Android phone is sent the newest message, whatever its kind.
                        catchesUp = (newest.update ?? newest.start) != nil && token != before?.fcmToken
                    } else if let token = follower.updateToken, !follower.onChannel {
                        catchesUp = newest.update != nil && token != before?.updateToken
                    } else if follower.updateToken == nil, let token = follower.startToken {
                        catchesUp = newest.start != nil && token != before?.startToken
                    } else {
                        catchesUp = false
                    }
                    if catchesUp { late.append(id) }
                    // Only a follower stored before can have a start in doubt.
                    if let before, follower.updateToken != nil, follower.updateToken != before.updateToken {
                        settled.append(id)
                    }
                }
                try await Self.settleStarts(settled, tx)
                try await Self.markLate(late, activityKey: activityKey, now: now, tx)
            }
            return changes
        }
    }

    /// What both upserts set when a device is already a follower.
    private static let followerUpsert = """
        ON CONFLICT (activity_key, device) DO UPDATE SET update_token = excluded.update_token,
            start_token = excluded.start_token, on_channel = excluded.on_channel, environment = excluded.environment,
            fcm_token = excluded.fcm_token
        """

    /// Stores `followers` (distinct devices) with one row of parameters each; returns `id, device`.
    private static func upsertFollowersValues(
        _ followers: [Follower], activityKey: String, _ tx: any SQLTransaction
    ) async throws -> [SQLRow] {
        let values = followers.indices.map { "(\(SQLDialect.placeholders(from: $0 * 7 + 1, count: 7)))" }
        var parameters: [SQLValue] = []
        parameters.reserveCapacity(followers.count * 7)
        for follower in followers {
            parameters += [
                .text(activityKey), .text(follower.device), HexToken.stored(follower.updateToken),
                HexToken.stored(follower.startToken), .int(follower.onChannel ? 1 : 0),
                .optional(follower.environment?.rawValue), .optional(follower.fcmToken),
            ]
        }
        return try await tx.run(
            """
            INSERT INTO followers (activity_key, device, update_token, start_token, on_channel, environment, fcm_token)
            VALUES \(values.joined(separator: ", "))
            \(followerUpsert)
            RETURNING id, device
            """,
            parameters
        )
    }

    /// The same on PostgreSQL with one array parameter per column, whatever the number of
    /// followers: one short statement to parse and plan, and a few parameters to bind. Without
    /// `upsert`, a plain insert of devices known to be new: PostgreSQL's conflict check costs
    /// about half as much again as the insert itself.
    private static func writeFollowersUnnest(
        _ followers: [Follower], activityKey: String, upsert: Bool, _ tx: any SQLTransaction
    ) async throws -> [SQLRow] {
        func bytes(_ token: String?) -> [UInt8]? {
            guard case .bytes(let bytes) = HexToken.stored(token) else { return nil }
            return bytes
        }
        return try await tx.run(
            """
            INSERT INTO followers (activity_key, device, update_token, start_token, on_channel, environment, fcm_token)
            SELECT $1, device, update_token, start_token, on_channel, environment, fcm_token
            FROM unnest($2::text[], $3::bytea[], $4::bytea[], $5::bigint[], $6::text[], $7::text[])
                AS batch (device, update_token, start_token, on_channel, environment, fcm_token)
            \(upsert ? followerUpsert : "")
            RETURNING id, device
            """,
            [
                .text(activityKey), .array(.texts(followers.map(\.device))),
                .array(.bytes(followers.map { bytes($0.updateToken) })),
                .array(.bytes(followers.map { bytes($0.startToken) })),
                .array(.ints(followers.map { $0.onChannel ? 1 : 0 })),
                .array(.texts(followers.map { $0.environment?.rawValue })),
                .array(.texts(followers.map(\.fcmToken))),
            ]
        )
    }

    /// Marks followers to be sent their key's newest push at `now` (once, whatever they had).
    static func markLate(_ ids: [Int64], activityKey: String, now: Millis, _ tx: any SQLTransaction) async throws {
        for chunk in chunks(ids.count) {
            let values = (0..<chunk.count).map { "($\($0 + 3), $1, 'late', 0, $2)" }.joined(separator: ", ")
            try await tx.run(
                """
                INSERT INTO follower_exceptions (follower_id, activity_key, state, attempts, due_at) VALUES \(values)
                ON CONFLICT (follower_id) DO UPDATE SET state = 'late', attempts = 0, due_at = excluded.due_at, claimed_by = ''
                """,
                [.text(activityKey), .int(now)] + chunk.map { .int(ids[$0]) }
            )
        }
    }

    public func follower(device: String, activityKey: String) async throws -> Follower? {
        try await transaction { tx in
            try await tx.run(
                "SELECT device, update_token, start_token, on_channel, environment, fcm_token FROM followers WHERE activity_key = $1 AND device = $2",
                [.text(activityKey), .text(device)]
            ).first.map(Self.follower)
        }
    }

    public func deleteFollower(device: String, activityKey: String) async throws -> Bool {
        try await transaction { tx in
            let rows = try await tx.run(
                "DELETE FROM followers WHERE activity_key = $1 AND device = $2 RETURNING id",
                [.text(activityKey), .text(device)]
            )
            guard let id = try rows.first?.int(0) else { return false }
            try await tx.run("DELETE FROM follower_exceptions WHERE follower_id = $1", [.int(id)])
            return true
        }
    }

    /// One row of `follower_counts`, which triggers keep exact (see `FollowerCountTriggers`).
    public func followerCounts(activityKey: String) async throws -> FollowerCounts {
        try await transaction { tx in
            var counts = try await Self.followerCounts(
                "SELECT updating, awaiting_start, on_channel, retrying, catching_up, android FROM follower_counts WHERE activity_key = $1",
                [.text(activityKey)], inDoubtOf: activityKey, tx
            )
            counts.named = try await Self.namedEnvironments(
                "SELECT environment, followers FROM follower_environments WHERE activity_key = $1",
                [.text(activityKey)],
                tx)
            return counts
        }
    }

    public func allFollowerCounts() async throws -> FollowerCounts {
        try await transaction { tx in
            var counts = try await Self.followerCounts(
                """
                SELECT CAST(COALESCE(SUM(updating), 0) AS BIGINT), CAST(COALESCE(SUM(awaiting_start), 0) AS BIGINT),
                       CAST(COALESCE(SUM(on_channel), 0) AS BIGINT), CAST(COALESCE(SUM(retrying), 0) AS BIGINT),
                       CAST(COALESCE(SUM(catching_up), 0) AS BIGINT), CAST(COALESCE(SUM(android), 0) AS BIGINT)
                FROM follower_counts
                """,
                [], inDoubtOf: nil, tx
            )
            counts.named = try await Self.namedEnvironments(
                "SELECT environment, CAST(SUM(followers) AS BIGINT) FROM follower_environments GROUP BY environment",
                [],
                tx)
            return counts
        }
    }

    /// Followers that named an environment, by environment (rows of `follower_environments`).
    private static func namedEnvironments(
        _ query: String, _ parameters: [SQLValue], _ tx: any SQLTransaction
    ) async throws -> [APNsEnvironment: Int] {
        var named: [APNsEnvironment: Int] = [:]
        for row in try await tx.run(query, parameters) {
            if let environment = try environment(row.optionalText(0)) {
                named[environment, default: 0] += Int(try row.int(1))
            }
        }
        return named.filter { $0.value != 0 }
    }

    private static func followerCounts(
        _ query: String, _ parameters: [SQLValue], inDoubtOf key: String?, _ tx: any SQLTransaction
    ) async throws -> FollowerCounts {
        var counts = FollowerCounts()
        counts.inDoubt = try await inDoubtCount(activityKey: key, tx)
        if let row = try await tx.run(query, parameters).first {
            counts.updating = Int(try row.int(0))
            counts.awaitingStart = Int(try row.int(1))
            counts.onChannel = Int(try row.int(2))
            counts.retrying = Int(try row.int(3))
            counts.catchingUp = Int(try row.int(4))
            counts.android = Int(try row.int(5))
        }
        return counts
    }

    public func fanOutFailures(activityKey: String, limit: Int) async throws -> [FanOutFailureSummary] {
        try await transaction { tx in
            try await tx.run(
                """
                SELECT fanout_id, activity_key, reason, count, sample, failed_at FROM fanout_failures
                WHERE activity_key = $1 ORDER BY fanout_id DESC, reason LIMIT \(SQLDialect.limit(limit))
                """,
                [.text(activityKey)]
            ).map { row in
                FanOutFailureSummary(
                    fanOutID: try row.int(0), activityKey: try row.text(1), reason: try row.text(2),
                    count: Int(try row.int(3)),
                    sample: try row.text(4).split(separator: " ").map(String.init), failedAt: try row.int(5)
                )
            }
        }
    }

    /// Reads `device, update_token, start_token, on_channel, environment, fcm_token`.
    static func follower(_ row: SQLRow) throws -> Follower {
        Follower(
            device: try row.text(0), updateToken: try row.optionalBytes(1).map(HexToken.hex),
            startToken: try row.optionalBytes(2).map(HexToken.hex), onChannel: try row.int(3) != 0,
            environment: try environment(row.optionalText(4)), fcmToken: try row.optionalText(5)
        )
    }
}
