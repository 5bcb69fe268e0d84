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
        // Lease rows in key order, so that two batches never wait on each other in a cycle.
        let keys = Set(events.map(\.activityKey)).sorted()
        let eventKeys = events.map { EventKey(source: $0.source, eventID: $0.eventID) }
        if driver.dialect.kind == .postgres {
            return try await transaction { tx in
                try await Self.insertEventsUnnest(events, keys: keys, eventKeys: eventKeys, tx)
            }
        }
        let rows = events.map { event -> [SQLValue] in
            [
                .text(event.source), .text(event.eventID), .text(event.eventType), .text(event.activityKey),
                .int(event.orderKey), .int(event.receivedAt), .bytes(event.body),
                .bytes(StoredHeaders.encode(event.headers)),
            ]
        }
        return try await transaction { tx in
            for chunk in Self.chunks(keys.count) {
                let values = (1...chunk.count).map { "($\($0), 1)" }.joined(separator: ", ")
                try await tx.run(
                    // A row already marked is left unwritten (no page to log), yet locked, which
                    // orders this insert against a dispatch commit clearing the mark.
                    """
                    INSERT INTO activity_leases (activity_key, pending) VALUES \(values)
                    \(Self.pendingMark)
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
                    INSERT INTO inbox_events (\(Self.inboxColumns)) VALUES \(values) \(Self.inboxInsertEnd)
                    """,
                    chunk.flatMap { rows[$0] }
                )
                results += try Self.insertResults(returned, eventKeys[chunk])
            }
            return results
        }
    }

    /// What an insert does with a lease row that exists: a row already marked is left unwritten
    /// (no page to log), yet locked, which orders the insert against a dispatch commit clearing
    /// the mark.
    private static let pendingMark =
        "ON CONFLICT (activity_key) DO UPDATE SET pending = 1 WHERE activity_leases.pending = 0"

    private static let inboxColumns =
        "source, event_id, event_type, activity_key, order_key, received_at, body, headers"

    private static let inboxInsertEnd = "ON CONFLICT (source, event_id) DO NOTHING RETURNING sequence, source, event_id"

    /// The same on PostgreSQL, with each column of the batch as one array parameter: two short
    /// statements whatever the batch, instead of a statement of thousands of parameters to parse,
    /// plan and bind per 256 events.
    private static func insertEventsUnnest(
        _ events: [InboxEvent], keys: [String], eventKeys: [EventKey], _ tx: any SQLTransaction
    ) async throws -> [InsertResult] {
        try await tx.run(
            "INSERT INTO activity_leases (activity_key, pending) SELECT key, 1 FROM unnest($1::text[]) AS batch (key) \(pendingMark)",
            [.array(.texts(keys))]
        )
        let returned = try await tx.run(
            """
            INSERT INTO inbox_events (\(inboxColumns))
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[],
                                 $7::bytea[], $8::bytea[])
            \(inboxInsertEnd)
            """,
            [
                .array(.texts(events.map(\.source))), .array(.texts(events.map(\.eventID))),
                .array(.texts(events.map(\.eventType))), .array(.texts(events.map(\.activityKey))),
                .array(.ints(events.map(\.orderKey))), .array(.ints(events.map(\.receivedAt))),
                .array(.bytes(events.map(\.body))), .array(.bytes(events.map { StoredHeaders.encode($0.headers) })),
            ]
        )
        return try insertResults(returned, eventKeys[...])
    }

    /// Each event's result, in order, from the rows an insert returned: what came back was
    /// stored; a key seen again (in the store or earlier in the batch) was not.
    private static func insertResults(_ returned: [SQLRow], _ eventKeys: ArraySlice<EventKey>) throws -> [InsertResult]
    {
        var stored: [EventKey: Int64] = [:]
        for row in returned {
            stored[EventKey(source: try row.text(1), eventID: try row.text(2))] = try row.int(0)
        }
        return eventKeys.map { stored.removeValue(forKey: $0).map { .stored(sequence: $0) } ?? .duplicate }
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
