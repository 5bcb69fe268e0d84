import Foundation

/// A stream's resume point, read through `inbox_source_received` (migration 5).
extension SQLStore {
    public func sourcePosition(_ source: String, activityLimit: Int) async throws -> SourcePosition? {
        try await transaction { tx in
            let newest = try await tx.run(
                "SELECT event_id, received_at FROM inbox_events WHERE source = $1 ORDER BY received_at DESC, sequence DESC LIMIT 1",
                [.text(source)]
            )
            guard let row = newest.first else { return nil }
            let keys = try await tx.run(
                """
                SELECT e.activity_key, MAX(e.sequence) AS newest FROM inbox_events e
                WHERE e.source = $1
                  AND NOT EXISTS (SELECT 1 FROM activities a WHERE a.key = e.activity_key AND a.lifecycle = 'ended')
                GROUP BY e.activity_key ORDER BY newest DESC LIMIT \(SQLDialect.limit(activityLimit))
                """,
                [.text(source)]
            ).map { try $0.text(0) }
            return SourcePosition(lastEventID: try row.text(0), lastReceivedAt: try row.int(1), openActivityKeys: keys)
        }
    }
}
