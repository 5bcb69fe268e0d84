import Foundation
import Liveline

/// What a watcher (the dashboard) reads of the audiences: which keys have followers, their
/// newest fan-outs and one follower each. Each query reads the fan-outs (a few rows per key) or
/// walks an index a few entries deep, so asking every second costs little whatever the number
/// of followers.
extension SQLStore {
    public func audienceKeys(limit: Int) async throws -> [String] {
        guard limit > 0 else { return [] }
        return try await transaction { tx in
            // The fan-outs first (a few rows per key: the newest of each kind and those running).
            var keys = try await tx.run(
                """
                SELECT activity_key FROM fanouts GROUP BY activity_key
                ORDER BY MAX(CASE WHEN state = 'running' THEN 1 ELSE 0 END) DESC, MAX(id) DESC LIMIT \(SQLDialect.limit(limit))
                """
            ).map { try $0.text(0) }
            guard keys.count < limit else { return keys }
            // Then keys with no fan-out yet, by a loose index scan: from each key, the next one by
            // the followers' (activity_key, id) index, one lookup per key, not a pass over every
            // follower.
            let known = Set(keys)
            let more = try await tx.run(
                """
                WITH RECURSIVE audience(key, n) AS (
                    SELECT MIN(activity_key), 1 FROM followers
                    UNION ALL
                    SELECT (SELECT f.activity_key FROM followers f WHERE f.activity_key > audience.key
                            ORDER BY f.activity_key LIMIT 1), n + 1
                    FROM audience WHERE audience.key IS NOT NULL AND n < $1
                )
                SELECT key FROM audience WHERE key IS NOT NULL
                """,
                [.int(Int64(limit + known.count))]
            ).map { try $0.text(0) }
            keys += more.filter { !known.contains($0) }.prefix(limit - keys.count)
            return keys
        }
    }

    public func fanOuts(activityKey: String, limit: Int) async throws -> [FanOutStatus] {
        try await transaction { tx in
            try await tx.run(
                """
                SELECT id, activity_key, kind, state, payload, sent, failed, received_at, created_at, finished_at
                FROM fanouts WHERE activity_key = $1 ORDER BY id DESC LIMIT \(SQLDialect.limit(limit))
                """,
                [.text(activityKey)]
            ).map { row in
                let kind = try row.text(2), state = try row.text(3)
                guard let event = PushEvent(rawValue: kind), let shown = FanOutStatus.State(rawValue: state) else {
                    throw StoreError(
                        .corruptRow, store: name,
                        cause: "fan-out \(try row.int(0)) of '\(activityKey)' has kind '\(kind)' and state '\(state)'")
                }
                return FanOutStatus(
                    id: try row.int(0), activityKey: try row.text(1), kind: event, state: shown,
                    payload: try row.bytes(4),
                    sent: Int(try row.int(5)), failed: Int(try row.int(6)), receivedAt: try row.optionalInt(7),
                    createdAt: try row.int(8), finishedAt: try row.optionalInt(9))
            }
        }
    }

    public func sampleFollower(activityKey: String) async throws -> Follower? {
        try await transaction { tx in
            for column in ["update_token", "start_token"] {
                if let row = try await tx.run(
                    """
                    SELECT device, update_token, start_token, on_channel, environment, fcm_token FROM followers
                    WHERE activity_key = $1 AND \(column) IS NOT NULL ORDER BY id LIMIT 1
                    """,
                    [.text(activityKey)]
                ).first {
                    return try Self.follower(row)
                }
            }
            return nil
        }
    }

    public func sampleAndroidFollower(activityKey: String) async throws -> Follower? {
        try await transaction { tx in
            try await tx.run(
                """
                SELECT device, update_token, start_token, on_channel, environment, fcm_token FROM followers
                WHERE activity_key = $1 AND fcm_token IS NOT NULL ORDER BY id LIMIT 1
                """,
                [.text(activityKey)]
            ).first.map(Self.follower)
        }
    }
}
