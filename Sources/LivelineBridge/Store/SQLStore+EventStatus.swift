import Foundation

/// One event's status, read through the inbox's `(source, event_id)` uniqueness index; an
/// activity's queued pushes, through the outbox's index by activity.
extension SQLStore {
    public func queuedPushes(for activityKey: String) async throws -> Int {
        try await transaction { tx in
            let rows = try await tx.run("SELECT COUNT(*) FROM outbox WHERE activity_key = $1", [.text(activityKey)])
            guard let row = rows.first else { throw SQLRowError("no row from COUNT") }
            return Int(try row.int(0))
        }
    }

    public func eventStatus(source: String, eventID: String) async throws -> InboxEventStatus? {
        try await transaction { tx in
            let rows = try await tx.run(
                """
                SELECT sequence, event_type, activity_key, state, reason, received_at, applied_at
                FROM inbox_events WHERE source = $1 AND event_id = $2
                """,
                [.text(source), .text(eventID)]
            )
            guard let row = rows.first else { return nil }
            let stateText = try row.text(3)
            guard let state = InboxEventStatus.State(rawValue: stateText) else {
                throw StoreError(
                    .corruptRow, store: name, cause: "event \(eventID) of \(source) has an unknown state '\(stateText)'"
                )
            }
            return InboxEventStatus(
                sequence: try row.int(0), source: source, eventID: eventID, eventType: try row.text(1),
                activityKey: try row.text(2), state: state, reason: try row.optionalText(4),
                receivedAt: try row.int(5),
                appliedAt: try row.optionalInt(6))
        }
    }
}
