import Liveline

/// What ``BridgeRecorder`` reads to turn stored events into a scenario file.
public protocol RecordingStore: Sendable {
    /// The activities with events of `source` received in `from..<to` (an open end when nil),
    /// by their first such event.
    func activityKeys(source: String, receivedFrom from: Millis?, to: Millis?) async throws -> [String]

    /// The events of `activityKey` that dispatch steps took up, applied or superseded, in the
    /// order the steps took them: by step, then order key, then arrival. Events still pending
    /// are left out, as are those a store older than migration 2 marked without a time.
    func dispatchedEvents(activityKey: String) async throws -> [DispatchedEvent]

    /// The activity with this key, if registered (its story and first state).
    func activity(_ key: String) async throws -> RegisteredActivity?
}
