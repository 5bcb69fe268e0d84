import Foundation

/// The inbox: events stored in one transaction a batch and deduplicated on (source, event ID),
/// and how many of an activity's events are still pending.
///
/// Storing an event makes its activity's `activity_leases` row (one per key) or marks it
/// pending, which is how a dispatch pass finds the activities with work. Claiming them, the
/// replay's lease (``lease(_:to:until:_:)``) and the applied and superseded marks belong to the
/// dispatch side (`SQLStore+Dispatch`).
extension SQLStore {
    public func insertEvents(_ events: [InboxEvent]) async throws -> [InsertResult] {
        guard !events.isEmpty else { return [] }
        let rows = events.map { event -> [SQLValue] in
            [
                .text(event.source), .text(event.eventID), .text(event.eventType), .text(event.activityKey),
                .int(event.orderKey), .int(event.receivedAt), .bytes(event.body),
                .bytes(StoredHeaders.encode(event.headers)),
            ]
        }
        // Lease rows in key order, so that two batches never wait on each other in a cycle.
        let keys = Set(events.map(\.activityKey)).sorted()
        let eventKeys = events.map { EventKey(source: $0.source, eventID: $0.eventID) }
        return try await transaction { tx in
            for chunk in Self.chunks(keys.count) {
                let values = (1...chunk.count).map { "($\($0), 1)" }.joined(separator: ", ")
                try await tx.run(
                    // A row already marked is left unwritten (no page to log), yet locked, which
                    // orders this insert against a dispatch commit clearing the mark.
                    """
                    INSERT INTO activity_leases (activity_key, pending) VALUES \(values)
                    ON CONFLICT (activity_key) DO UPDATE SET pending = 1 WHERE activity_leases.pending = 0
                    """,
                    chunk.map { .text(keys[$0]) }
                )
            }
            // One multi-row INSERT per chunk: one round trip, not one per event. What comes back
            // is what was stored; a key seen again (in the store or earlier in this batch) is not.
            var results: [InsertResult] = []
            results.reserveCapacity(rows.count)
            for chunk in Self.chunks(rows.count) {
                let values = (0..<chunk.count).map { "(\(SQLDialect.placeholders(from: $0 * 8 + 1, count: 8)))" }
                    .joined(separator: ", ")
                let returned = try await tx.run(
                    """
                    INSERT INTO inbox_events (source, event_id, event_type, activity_key, order_key, received_at, body, headers)
                    VALUES \(values) ON CONFLICT (source, event_id) DO NOTHING RETURNING sequence, source, event_id
                    """,
                    chunk.flatMap { rows[$0] }
                )
                var stored: [EventKey: Int64] = [:]
                for row in returned {
                    stored[EventKey(source: try row.text(1), eventID: try row.text(2))] = try row.int(0)
                }
                for index in chunk {
                    results.append(
                        stored.removeValue(forKey: eventKeys[index]).map { .stored(sequence: $0) } ?? .duplicate)
                }
            }
            return results
        }
    }

    /// Leases `keys` to `instance` until `expires` (milliseconds) in `tx`.
    static func lease(
        _ keys: [String], to instance: String, until expires: Int64, _ tx: any SQLTransaction
    ) async throws {
        try await tx.run(
            "UPDATE activity_leases SET instance = $1, expires_at = $2 WHERE activity_key IN (\(SQLDialect.placeholders(from: 3, count: keys.count)))",
            [.text(instance), .int(expires)] + keys.map(SQLValue.text)
        )
    }

    public func pendingEvents(for activityKey: String) async throws -> Int {
        try await transaction { tx in
            let rows = try await tx.run(
                "SELECT COUNT(*) FROM inbox_events WHERE activity_key = $1 AND state = 'pending'", [.text(activityKey)]
            )
            guard let row = rows.first else { throw SQLRowError("no row from COUNT") }
            return Int(try row.int(0))
        }
    }

}

/// An inbox event's identity: the unique key of `inbox_events`.
private struct EventKey: Hashable {
    var source: String
    var eventID: String
}
