import Crypto
import Foundation
import Liveline
@testable import LivelineBridge

/// Operations the bridge itself never performs, which tests use to set a store up or to play
/// an instance that dies mid-work: the older claim model (claim events or activities under a
/// lease, mark them, give them back), rows written whole, API keys added, the migrations read.
/// They run on the store's own transactions and statements, so what they write is what the
/// bridge would find.
extension SQLStore {
    func claimNextEvents(limit: Int, instance: String, lease: Duration, now: Millis) async throws -> [ClaimedActivity] {
        let expires = now + lease.millis
        let lock = driver.dialect.lockRowsSkipLocked
        return try await transaction { tx in
            let keys = try await tx.run(
                """
                SELECT l.activity_key FROM activity_leases l
                WHERE (l.instance = '' OR l.expires_at <= $1)
                  AND EXISTS (SELECT 1 FROM inbox_events e WHERE e.activity_key = l.activity_key AND e.state = 'pending')
                ORDER BY (SELECT MIN(e.sequence) FROM inbox_events e WHERE e.activity_key = l.activity_key AND e.state = 'pending')
                LIMIT \(SQLDialect.limit(limit)) \(lock)
                """,
                [.int(now)]
            ).map { try $0.text(0) }
            guard !keys.isEmpty else { return [] }
            try await Self.lease(keys, to: instance, until: expires, tx)
            let rows = try await tx.run(
                """
                SELECT sequence, source, event_id, event_type, activity_key, order_key, received_at, body, headers
                FROM inbox_events WHERE state = 'pending' AND activity_key IN (\(SQLDialect.placeholders(from: 1, count: keys.count)))
                ORDER BY activity_key, order_key, sequence
                """,
                keys.map(SQLValue.text)
            )
            var byKey: [String: [StoredEvent]] = [:]
            for row in rows {
                let event = InboxEvent(
                    source: try row.text(1), eventID: try row.text(2), eventType: try row.text(3),
                    activityKey: try row.text(4), orderKey: try row.int(5), receivedAt: try row.int(6),
                    body: try row.bytes(7), headers: try StoredHeaders.decode(try row.bytes(8))
                )
                byKey[event.activityKey, default: []].append(StoredEvent(sequence: try row.int(0), event: event))
            }
            return keys.map { ClaimedActivity(activityKey: $0, events: byKey[$0] ?? []) }
        }
    }

    func markSuperseded(_ sequences: [Int64], reason: String, instance: String) async throws -> Int {
        try await mark(sequences, state: "superseded", reason: reason, instance: instance)
    }

    func releaseActivities(_ keys: [String], instance: String) async throws {
        guard !keys.isEmpty else { return }
        try await transaction { tx in
            try await tx.run(
                "UPDATE activity_leases SET instance = '', expires_at = 0 WHERE instance = $1 AND activity_key IN (\(SQLDialect.placeholders(from: 2, count: keys.count)))",
                [.text(instance)] + keys.map(SQLValue.text)
            )
        }
    }

    func markApplied(_ sequences: [Int64], instance: String) async throws -> Int {
        try await mark(sequences, state: "applied", reason: nil, instance: instance)
    }

    /// Moves pending events of activities `instance` still leases to `state`.
    private func mark(_ sequences: [Int64], state: String, reason: String?, instance: String) async throws -> Int {
        guard !sequences.isEmpty else { return 0 }
        return try await transaction { tx in
            try await tx.run(
                """
                UPDATE inbox_events SET state = $1, reason = $2
                WHERE state = 'pending' AND sequence IN (\(SQLDialect.placeholders(from: 4, count: sequences.count)))
                  AND activity_key IN (SELECT activity_key FROM activity_leases WHERE instance = $3)
                RETURNING sequence
                """,
                [.text(state), .optional(reason), .text(instance)] + sequences.map(SQLValue.int)
            ).count
        }
    }

    func upsertActivity(_ record: RegisteredActivity) async throws {
        let values: [SQLValue] =
            [
                .text(record.activityKey), .optional(record.updateToken), .optional(record.pushToStartToken),
                .optional(record.channelID), .text(record.source), .int(record.frequentUpdates ? 1 : 0),
                .text(record.lifecycle.rawValue), .optional(record.engineState), .optional(record.nextDeadline),
                .optional(record.lastPush?.at), .optional(record.lastPush.map { Int64($0.status) }),
                .optional(record.lastPush?.reason), .optional(record.lastPush?.apnsID), .optional(record.lastError),
                .int(record.updatedAt), .optional(record.environment?.rawValue),
            ] + Self.renewalValues(record.renewal) + [.optional(record.fcmToken)]
        let updates = Self.activityColumns.split(separator: ",").dropFirst()
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try await transaction { tx in
            try await Self.markRegistered(record.activityKey, tx)
            try await tx.run(
                """
                INSERT INTO activities (\(Self.activityColumns)) VALUES (\(SQLDialect.placeholders(from: 1, count: values.count)))
                ON CONFLICT (key) DO UPDATE SET \(updates)
                """,
                values
            )
        }
    }

    func enqueuePush(_ push: OutboxPush) async throws -> Int64 {
        try await transaction { tx in try await Self.insertPush(push, tx) }
    }

    func deleteDeadLetter(_ id: Int64) async throws -> Bool {
        try await transaction { tx in
            !(try await tx.run("DELETE FROM dead_letters WHERE id = $1 RETURNING id", [.int(id)]).isEmpty)
        }
    }

    func addAPIKey(name: String, key: String, now: Millis) async throws {
        let hash = Array(SHA256.hash(data: Array(key.utf8)))
        try await transaction { tx in
            try await tx.run(
                """
                INSERT INTO api_keys (name, sha256, created_at) VALUES ($1, $2, $3)
                ON CONFLICT (name) DO UPDATE SET sha256 = excluded.sha256, created_at = excluded.created_at
                """,
                [.text(name), .bytes(hash), .int(now)]
            )
        }
    }

    func appliedMigrations() async throws -> [Int] {
        try await transaction { tx in
            try await tx.run("SELECT version FROM migrations ORDER BY version").map { Int(try $0.int(0)) }
        }
    }
}

/// One activity's pending events, leased to the instance that claimed them.
struct ClaimedActivity: Sendable, Hashable {
    var activityKey: String
    /// Oldest order key first; ties in arrival order.
    var events: [StoredEvent]
}
