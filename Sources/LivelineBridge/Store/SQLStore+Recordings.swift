import Foundation
import Liveline

/// Reading events back for `liveline bridge record`, through `inbox_by_activity` (migration 6)
/// and `inbox_source_received` (migration 5).
extension SQLStore {
    public func activityKeys(source: String, receivedFrom from: Millis?, to: Millis?) async throws -> [String] {
        try await transaction { tx in
            try await tx.run(
                """
                SELECT activity_key, MIN(received_at) AS first_received FROM inbox_events
                WHERE source = $1 AND received_at >= $2 AND received_at < $3
                GROUP BY activity_key ORDER BY first_received, activity_key
                """,
                [.text(source), .int(from ?? .min), .int(to ?? .max)]
            ).map { try $0.text(0) }
        }
    }

    public func dispatchedEvents(activityKey: String) async throws -> [DispatchedEvent] {
        try await transaction { tx in
            let rows = try await tx.run(
                """
                SELECT sequence, source, event_id, event_type, activity_key, order_key, received_at, body, headers,
                       state, reason, applied_at
                FROM inbox_events WHERE activity_key = $1 AND state <> 'pending' AND applied_at IS NOT NULL
                ORDER BY applied_at, order_key, sequence
                """,
                [.text(activityKey)]
            )
            return try rows.map { row in
                let event = InboxEvent(
                    source: try row.text(1), eventID: try row.text(2), eventType: try row.text(3),
                    activityKey: try row.text(4), orderKey: try row.int(5), receivedAt: try row.int(6),
                    body: try row.bytes(7), headers: try StoredHeaders.decode(try row.bytes(8))
                )
                let superseded = try row.text(9) == "superseded"
                return DispatchedEvent(
                    stored: StoredEvent(sequence: try row.int(0), event: event), dispatchedAt: try row.int(11),
                    supersededReason: superseded ? (try row.optionalText(10) ?? "superseded") : nil
                )
            }
        }
    }
}
