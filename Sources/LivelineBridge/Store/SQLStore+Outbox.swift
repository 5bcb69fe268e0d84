import Foundation

/// The outbox and its dead letters. A claimed push is leased to one instance until it is marked
/// or its claim expires; a failure either schedules a retry or, after the last attempt, moves
/// the push to `dead_letters` in the same transaction.
extension SQLStore {
    public func enqueuePush(_ push: OutboxPush) async throws -> Int64 {
        let headers = try StoredHeaders.encode(push.headers)
        return try await transaction { tx in
            let rows = try await tx.run(
                "INSERT INTO outbox (activity_key, payload, headers, priority, due_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
                [.text(push.activityKey), .bytes(push.payload), .bytes(headers), .int(Int64(push.priority)), .millis(push.dueAt)]
            )
            guard let row = rows.first else { throw SQLRowError("no id from INSERT INTO outbox") }
            return try row.int(0)
        }
    }

    public func claimDuePushes(limit: Int, instance: String, lease: Duration, now: Date) async throws -> [ClaimedPush] {
        let nowMillis = StoreTime.millis(now)
        let lock = driver.dialect.lockRowsSkipLocked
        return try await transaction { tx in
            let rows = try await tx.run(
                """
                SELECT id, activity_key, payload, headers, priority, due_at, attempts FROM outbox
                WHERE due_at <= $1 AND (claimed_by = '' OR claim_expires_at <= $1)
                ORDER BY due_at, id LIMIT $2 \(lock)
                """,
                [.int(nowMillis), .int(Int64(max(limit, 0)))]
            )
            let pushes = try rows.map { row in
                ClaimedPush(id: try row.int(0), push: try Self.push(row, from: 1), attempts: Int(try row.int(6)))
            }
            guard !pushes.isEmpty else { return [] }
            try await tx.run(
                "UPDATE outbox SET claimed_by = $1, claim_expires_at = $2 WHERE id IN (\(SQLDialect.placeholders(from: 3, count: pushes.count)))",
                [.text(instance), .int(nowMillis + StoreTime.millis(lease))] + pushes.map { .int($0.id) }
            )
            return pushes
        }
    }

    public func markPushSent(_ id: Int64, answer: PushAnswer) async throws {
        try await transaction { tx in
            guard let row = try await tx.run("DELETE FROM outbox WHERE id = $1 RETURNING activity_key", [.int(id)]).first else { return }
            try await Self.recordOnActivity(tx, key: try row.text(0), answer: answer, error: nil)
        }
    }

    public func markPushFailed(
        _ id: Int64, answer: PushAnswer?, error: String, retryAt: Date, maxAttempts: Int
    ) async throws -> PushFailureOutcome {
        try await transaction { tx in
            guard let row = try await tx.run(
                """
                UPDATE outbox SET attempts = attempts + 1, last_error = $2, claimed_by = '', claim_expires_at = 0
                WHERE id = $1 RETURNING attempts, activity_key
                """,
                [.int(id), .text(error)]
            ).first else { return .notFound }
            let attempts = Int(try row.int(0))
            try await Self.recordOnActivity(tx, key: try row.text(1), answer: answer, error: error)
            guard attempts >= maxAttempts else {
                try await tx.run("UPDATE outbox SET due_at = $2 WHERE id = $1", [.int(id), .millis(retryAt)])
                return .retryScheduled(attempts: attempts)
            }
            let moved = try await tx.run(
                """
                INSERT INTO dead_letters (activity_key, payload, headers, priority, due_at, attempts, last_error, failed_at)
                SELECT activity_key, payload, headers, priority, due_at, attempts, last_error, $2 FROM outbox WHERE id = $1
                RETURNING id
                """,
                [.int(id), .millis(answer?.at ?? retryAt)]
            )
            try await tx.run("DELETE FROM outbox WHERE id = $1", [.int(id)])
            guard let deadLetter = moved.first else { throw SQLRowError("no id from INSERT INTO dead_letters") }
            return .deadLettered(id: try deadLetter.int(0))
        }
    }

    public func deadLetters(limit: Int) async throws -> [DeadLetter] {
        try await transaction { tx in
            try await tx.run(
                "SELECT id, activity_key, payload, headers, priority, due_at, attempts, last_error, failed_at FROM dead_letters ORDER BY id LIMIT $1",
                [.int(Int64(max(limit, 0)))]
            ).map { row in
                DeadLetter(
                    id: try row.int(0), push: try Self.push(row, from: 1), attempts: Int(try row.int(6)),
                    lastError: try row.text(7), failedAt: try row.date(8)
                )
            }
        }
    }

    public func deleteDeadLetter(_ id: Int64) async throws -> Bool {
        try await transaction { tx in
            !(try await tx.run("DELETE FROM dead_letters WHERE id = $1 RETURNING id", [.int(id)]).isEmpty)
        }
    }

    /// Reads `activity_key, payload, headers, priority, due_at` starting at column `first`.
    private static func push(_ row: SQLRow, from first: Int) throws -> OutboxPush {
        OutboxPush(
            activityKey: try row.text(first), payload: try row.bytes(first + 1),
            headers: try StoredHeaders.decode(try row.bytes(first + 2)), priority: Int(try row.int(first + 3)),
            dueAt: try row.date(first + 4)
        )
    }

    /// The activity's last push (when APNs or the transport answered) and last error.
    private static func recordOnActivity(_ tx: any SQLTransaction, key: String, answer: PushAnswer?, error: String?) async throws {
        if let answer {
            try await tx.run(
                """
                UPDATE activities SET last_push_at = $2, last_push_status = $3, last_push_reason = $4, last_push_apns_id = $5
                WHERE key = $1
                """,
                [.text(key), .millis(answer.at), .int(Int64(answer.status)), .optional(answer.reason), .optional(answer.apnsID)]
            )
        }
        if let error {
            try await tx.run("UPDATE activities SET last_error = $2 WHERE key = $1", [.text(key), .text(error)])
        }
    }
}
