import Liveline

/// Where a source's events stand in the store, for a stream source to resume from after a
/// restart: the gap since its newest event is recovered like any other.
public struct SourcePosition: Sendable, Hashable {
    /// The newest event's id (the sender's, or its body hash).
    public var lastEventID: String
    /// When the bridge received that event.
    public var lastReceivedAt: Millis
    /// Activities with events of this source that have not ended, newest first.
    public var openActivityKeys: [String]

    /// A position with the parts given.
    public init(lastEventID: String, lastReceivedAt: Millis, openActivityKeys: [String]) {
        self.lastEventID = lastEventID
        self.lastReceivedAt = lastReceivedAt
        self.openActivityKeys = openActivityKeys
    }
}
