import Foundation
import Liveline

/// The outbox and its dead letters. A claimed push is leased to one instance until it is marked
/// or its claim expires; a failure either schedules a retry or, after the last attempt, moves
/// the push to `dead_letters` in the same transaction.
extension SQLStore {
    /// Inserts one push in `tx`; returns its id.
    static func insertPush(
        _ push: OutboxPush, reason: String = "", storedAt: Millis? = nil, _ tx: any SQLTransaction
    ) async throws -> Int64 {
        let rows = try await tx.run(
            """
            INSERT INTO outbox (\(pushColumns), reason, stored_at, fcm_message)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            RETURNING id
            """,
            pushValues(push) + [.text(reason), .int(storedAt ?? push.dueAt), .optional(push.android)]
        )
        guard let row = rows.first else { throw SQLRowError("no id from INSERT INTO outbox") }
        return try row.int(0)
    }

    /// Inserts `pushes` in `tx` with one multi-row statement per chunk, in their order (an
    /// activity's pushes get increasing ids, which is the order they are sent in), each with the
    /// engine's reason and when its step stored it, for the delivery history, and its FCM
    /// message for a key on an Android phone.
    static func insertPushes(
        _ pushes: [(push: OutboxPush, reason: String, storedAt: Millis)], _ tx: any SQLTransaction
    ) async throws {
        for chunk in chunks(pushes.count) {
            let values = (0..<chunk.count).map { "(\(SQLDialect.placeholders(from: $0 * 11 + 1, count: 11)))" }
                .joined(separator: ", ")
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(chunk.count * 11)
            for index in chunk {
                let stored = pushes[index]
                parameters +=
                    pushValues(stored.push) + [
                        .text(stored.reason), .int(stored.storedAt), .optional(stored.push.android),
                    ]
            }
            try await tx.run(
                "INSERT INTO outbox (\(pushColumns), reason, stored_at, fcm_message) VALUES \(values)", parameters)
        }
    }

    public func claimDuePushes(limit: Int, instance: String, lease: Duration, now: Millis) async throws -> [ClaimedPush]
    {
        let lock = driver.dialect.lockRowsSkipLocked.isEmpty ? "" : "FOR UPDATE OF o SKIP LOCKED"
        let history = keepsHistory
        return try await transaction { tx in
            try await Self.markOutboxStartsInDoubt(.claimExpired(now: now), history: history, tx)
            // One push per activity at a time, the oldest: an activity's pushes reach APNs in the
            // order they were decided, retries included. A push waits while its activity has no
            // token it can go to (a start needs the push-to-start token; an Android phone's FCM
            // token takes every push), and while a renewal decided before it is under way.
            let rows = try await tx.run(
                """
                SELECT o.id, o.activity_key, o.payload, o.topic, o.priority, o.expiration, o.due_at, o.kind,
                       o.received_at, o.attempts, a.update_token, a.push_to_start_token, a.channel_id, a.environment,
                       a.fcm_token, o.fcm_message
                FROM outbox o JOIN activities a ON a.key = o.activity_key
                WHERE o.due_at <= $1 AND (o.claimed_by = '' OR o.claim_expires_at <= $1)
                  AND o.id = (SELECT MIN(f.id) FROM outbox f WHERE f.activity_key = o.activity_key)
                  AND ((o.kind = 'start' AND a.push_to_start_token IS NOT NULL)
                       OR (o.kind <> 'start' AND (a.update_token IS NOT NULL OR a.channel_id IS NOT NULL))
                       OR a.fcm_token IS NOT NULL)
                  AND \(Self.notBehindRenewal("o"))
                ORDER BY o.due_at, o.id LIMIT \(SQLDialect.limit(limit)) \(lock)
                """,
                [.int(now)]
            )
            let pushes = try rows.map { row in
                var push = try Self.push(row, from: 1)
                push.android = try row.optionalBytes(15)
                return ClaimedPush(
                    id: try row.int(0), push: push, attempts: Int(try row.int(9)),
                    target: ActivityTargets(
                        updateToken: try row.optionalText(10), pushToStartToken: try row.optionalText(11),
                        channelID: try row.optionalText(12), environment: try Self.environment(row.optionalText(13)),
                        fcmToken: try row.optionalText(14)
                    )
                )
            }
            guard !pushes.isEmpty else { return [] }
            try await tx.run(
                "UPDATE outbox SET claimed_by = $1, claim_expires_at = $2, claimed_at = $3 WHERE id IN (\(SQLDialect.placeholders(from: 4, count: pushes.count)))",
                [.text(instance), .int(now + lease.millis), .int(now)] + pushes.map { .int($0.id) }
            )
            return pushes
        }
    }

    /// Writes a sender pass's answers in one transaction. Delivered pushes leave the outbox
    /// with one statement for all of them; then each touched activity gets its last push.
    public func writePushOutcomes(_ outcomes: [PushOutcome]) async throws -> [PushFailureOutcome?] {
        guard !outcomes.isEmpty else { return [] }
        return try await transaction { tx in
            if keepsHistory { try await Self.recordAnswers(outcomes, tx) }
            var sent: [(id: Int64, answer: PushAnswer)] = []
            for outcome in outcomes {
                if case .sent(let id, let answer) = outcome { sent.append((id, answer)) }
            }
            var sentKeys: [Int64: String] = [:]
            for chunk in Self.chunks(sent.count) {
                let rows = try await tx.run(
                    "DELETE FROM outbox WHERE id IN (\(SQLDialect.placeholders(from: 1, count: chunk.count))) RETURNING id, activity_key",
                    chunk.map { .int(sent[$0].id) }
                )
                for row in rows { sentKeys[try row.int(0)] = try row.text(1) }
            }
            var lastAnswer: [String: PushAnswer] = [:]
            for (id, answer) in sent { if let key = sentKeys[id] { lastAnswer[key] = answer } }
            try await Self.writeLastPushes(lastAnswer, tx)

            var results: [PushFailureOutcome?] = []
            results.reserveCapacity(outcomes.count)
            for outcome in outcomes {
                switch outcome {
                case .sent:
                    results.append(nil)
                case .failed(let id, let answer, let error, let retryAt, let maxAttempts):
                    results.append(
                        try await Self.failed(
                            id, answer: answer, error: error, retryAt: retryAt, maxAttempts: maxAttempts, tx))
                case .undeliverable(let id, let answer, let error, let forgetToken, let now):
                    let letter = try await Self.undeliverable(
                        id, answer: answer, error: error, forgetToken: forgetToken, now: now, tx)
                    results.append(letter.map { .deadLettered(id: $0) } ?? .notFound)
                case .held(let id, let answer, let error, let until):
                    results.append(try await Self.held(id, answer: answer, error: error, until: until, tx))
                }
            }
            return results
        }
    }

    private static func failed(
        _ id: Int64, answer: PushAnswer?, error: String, retryAt: Millis, maxAttempts: Int, _ tx: any SQLTransaction
    ) async throws -> PushFailureOutcome {
        guard
            let row = try await tx.run(
                """
                UPDATE outbox SET attempts = attempts + 1, last_error = $2, claimed_by = '', claim_expires_at = 0
                WHERE id = $1 RETURNING attempts, activity_key
                """,
                [.int(id), .text(error)]
            ).first
        else { return .notFound }
        let attempts = Int(try row.int(0))
        try await writeLastPush(tx, key: try row.text(1), answer: answer, error: error)
        guard attempts >= maxAttempts else {
            try await tx.run("UPDATE outbox SET due_at = $2 WHERE id = $1", [.int(id), .int(retryAt)])
            return .retryScheduled(attempts: attempts)
        }
        return .deadLettered(id: try await moveToDeadLetters(id, failedAt: answer?.at ?? retryAt, tx))
    }

    /// A push that waits while sending is halted: due at `until`, its claim given back, its
    /// attempts unchanged.
    private static func held(
        _ id: Int64, answer: PushAnswer?, error: String, until: Millis, _ tx: any SQLTransaction
    ) async throws -> PushFailureOutcome {
        guard
            let row = try await tx.run(
                """
                UPDATE outbox SET due_at = $3, last_error = $2, claimed_by = '', claim_expires_at = 0
                WHERE id = $1 RETURNING activity_key
                """,
                [.int(id), .text(error), .int(until)]
            ).first
        else { return .notFound }
        try await writeLastPush(tx, key: try row.text(0), answer: answer, error: error)
        return .held
    }

    private static func undeliverable(
        _ id: Int64, answer: PushAnswer?, error: String, forgetToken: Bool, now: Millis, _ tx: any SQLTransaction
    ) async throws -> Int64? {
        guard
            let row = try await tx.run(
                """
                UPDATE outbox SET attempts = attempts + 1, last_error = $2, claimed_by = '', claim_expires_at = 0
                WHERE id = $1 RETURNING activity_key, kind
                """,
                [.int(id), .text(error)]
            ).first
        else { return nil }
        let key = try row.text(0)
        try await writeLastPush(tx, key: key, answer: answer, error: error)
        if forgetToken {
            // An Android phone's FCM token took the push, whatever its kind: that token goes.
            let column = try row.text(1) == PushEvent.start.rawValue ? "push_to_start_token" : "update_token"
            try await tx.run(
                """
                UPDATE activities SET \(column) = CASE WHEN fcm_token IS NULL THEN NULL ELSE \(column) END,
                       fcm_token = NULL
                WHERE key = $1
                """,
                [.text(key)])
        }
        return try await moveToDeadLetters(id, failedAt: answer?.at ?? now, tx)
    }

    /// Moves a push from the outbox to the dead letters; returns the dead letter's id.
    private static func moveToDeadLetters(_ id: Int64, failedAt: Millis, _ tx: any SQLTransaction) async throws -> Int64
    {
        let moved = try await tx.run(
            """
            INSERT INTO dead_letters (activity_key, payload, topic, priority, expiration, due_at, kind, attempts, last_error, failed_at)
            SELECT activity_key, payload, topic, priority, expiration, due_at, kind, attempts, COALESCE(last_error, ''), $2
            FROM outbox WHERE id = $1
            RETURNING id
            """,
            [.int(id), .int(failedAt)]
        )
        try await tx.run("DELETE FROM outbox WHERE id = $1", [.int(id)])
        guard let deadLetter = moved.first else { throw SQLRowError("no id from INSERT INTO dead_letters") }
        return try deadLetter.int(0)
    }

    /// A start still claimed here was sent and its answer given up on (the drain's cutoff): it
    /// is marked in doubt, not given back (`markOutboxStartsInDoubt`).
    public func releaseClaims(instance: String) async throws -> ReleasedClaims {
        let history = keepsHistory
        return try await transaction { tx in
            try await Self.markOutboxStartsInDoubt(.heldBy(instance: instance), history: history, tx)
            let pushes = try await tx.run(
                "UPDATE outbox SET claimed_by = '', claim_expires_at = 0 WHERE claimed_by = $1 RETURNING id",
                [.text(instance)]
            )
            let activities = try await tx.run(
                "UPDATE activity_leases SET instance = '', expires_at = 0 WHERE instance = $1 RETURNING activity_key",
                [.text(instance)]
            )
            return ReleasedClaims(pushes: pushes.count, activities: activities.count)
        }
    }

    public func deadLetters(limit: Int) async throws -> [DeadLetter] {
        try await transaction { tx in
            try await tx.run(
                """
                SELECT id, activity_key, payload, topic, priority, expiration, due_at, kind, NULL, attempts, last_error,
                       failed_at
                FROM dead_letters ORDER BY id LIMIT \(SQLDialect.limit(limit))
                """
            ).map { row in
                DeadLetter(
                    id: try row.int(0), push: try Self.push(row, from: 1), attempts: Int(try row.int(9)),
                    lastError: try row.text(10), failedAt: try row.int(11)
                )
            }
        }
    }

    /// A push's columns in the outbox and the fan-outs, in the order ``pushValues(_:)`` binds
    /// them and ``push(_:from:)`` reads them (dead letters have the same, but `received_at`).
    static let pushColumns = "activity_key, payload, topic, priority, expiration, due_at, kind, received_at"

    /// The values of ``pushColumns`` for `push`.
    static func pushValues(_ push: OutboxPush) -> [SQLValue] {
        [
            .text(push.activityKey), .bytes(push.payload), .optional(push.headers.topic),
            .int(Int64(push.headers.priority.apnsValue)), .int(push.headers.expiration), .int(push.dueAt),
            .text(push.kind.rawValue), .optional(push.receivedAt),
        ]
    }

    /// Reads ``pushColumns`` from column `first` on.
    static func push(_ row: SQLRow, from first: Int) throws -> OutboxPush {
        let kindText = try row.text(first + 6)
        guard let kind = PushEvent(rawValue: kindText) else { throw SQLRowError("push kind '\(kindText)'") }
        let priority: Priority
        switch try row.int(first + 3) {
        case 10: priority = .high
        case 5: priority = .low
        case let other: throw SQLRowError("push priority \(other)")
        }
        return OutboxPush(
            activityKey: try row.text(first), payload: try row.bytes(first + 1),
            headers: PushHeaders(
                topic: try row.optionalText(first + 2), priority: priority, expiration: try row.int(first + 4)),
            dueAt: try row.int(first + 5), kind: kind, receivedAt: try row.optionalInt(first + 7)
        )
    }

    /// Each activity's last push from a pass's delivered pushes (`answers` by key), one statement
    /// per 256 activities in key order, as the dispatcher's commit locks them: on PostgreSQL a
    /// round trip per activity would hold the rows locked, and the dispatch passes waiting on
    /// them, for as long as the round trips take. A 2xx clears the activity's last error.
    static func writeLastPushes(_ answers: [String: PushAnswer], _ tx: any SQLTransaction) async throws {
        let keys = answers.keys.sorted()
        for chunk in chunks(keys.count) {
            let rows = SQLDialect.typedRows(chunk.count, types: ["TEXT", "BIGINT", "BIGINT", "TEXT", "TEXT"])
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(chunk.count * 5)
            for index in chunk {
                let key = keys[index]
                guard let answer = answers[key] else { continue }
                parameters += [
                    .text(key), .int(answer.at), .int(Int64(answer.status)), .optional(answer.reason),
                    .optional(answer.apnsID),
                ]
            }
            try await tx.run(
                """
                WITH answer (key, answered_at, status, reason, apns_id) AS (VALUES \(rows))
                UPDATE activities SET last_push_at = answer.answered_at, last_push_status = answer.status,
                       last_push_reason = answer.reason, last_push_apns_id = answer.apns_id,
                       last_error = CASE WHEN answer.status >= 200 AND answer.status < 300 THEN NULL
                                         ELSE activities.last_error END
                FROM answer WHERE activities.key = answer.key
                """,
                parameters
            )
        }
    }

    /// The activity's last push (when APNs or the transport answered) and last error, in one
    /// statement: an error is kept, a 2xx clears the previous one.
    static func writeLastPush(
        _ tx: any SQLTransaction, key: String, answer: PushAnswer?, error: String?
    ) async throws {
        var assignments: [String] = []
        var parameters: [SQLValue] = [.text(key)]
        if let answer {
            assignments.append(
                "last_push_at = $2, last_push_status = $3, last_push_reason = $4, last_push_apns_id = $5")
            parameters += [
                .int(answer.at), .int(Int64(answer.status)), .optional(answer.reason), .optional(answer.apnsID),
            ]
        }
        if let error {
            assignments.append("last_error = $\(parameters.count + 1)")
            parameters.append(.text(error))
        } else if answer.map({ (200..<300).contains($0.status) }) == true {
            assignments.append("last_error = NULL")
        }
        guard !assignments.isEmpty else { return }
        try await tx.run("UPDATE activities SET \(assignments.joined(separator: ", ")) WHERE key = $1", parameters)
    }
}
