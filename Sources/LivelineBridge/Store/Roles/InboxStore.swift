import Foundation

/// The inbox as its writers see it: webhooks and stream events stored durably and
/// deduplicated (through ``InboxWriter``), and where a stream source resumes.
public protocol InboxStore: Sendable {
    /// Stores events durably in one transaction, deduplicated on (source, eventID). The
    /// results are in the order of `events`; a repeat within the same call is a duplicate.
    func insertEvents(_ events: [InboxEvent]) async throws -> [InsertResult]

    /// Where `source`'s events stand: the newest one stored, and the activities with events of
    /// it that have not ended (at most `activityLimit`, newest first). Nil when it has none.
    /// A stream source resumes from here after a restart.
    func sourcePosition(_ source: String, activityLimit: Int) async throws -> SourcePosition?
}
