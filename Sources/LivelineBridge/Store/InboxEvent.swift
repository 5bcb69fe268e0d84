import Liveline

/// A verified webhook (or stream event), as the inbox stores it.
///
/// The order key is an `Int64`: a sequence number, a timestamp in milliseconds, or a status
/// rank all map onto it, integers compare the same way in SQLite and PostgreSQL (no collation,
/// no zero-padding rules), and the source's configuration converts its own format once, at
/// ingest.
public struct InboxEvent: Sendable, Hashable {
    /// The configured source name (`doordash`, `stripe`, …).
    public var source: String
    /// The sender's event id, or a hash of the body where the sender has none.
    public var eventID: String
    /// The event's type, which picks its rule.
    public var eventType: String
    /// The key of the activity it drives.
    public var activityKey: String
    /// Where it falls in its activity's story (see ``OrderKey``); the arrival order when unordered.
    public var orderKey: Int64
    /// When the bridge received it.
    public var receivedAt: Millis
    /// The raw body, as verified.
    public var body: [UInt8]
    /// The headers the mapping needs later (lower-cased names).
    public var headers: [String: String]

    /// An event with the parts given.
    public init(
        source: String, eventID: String, eventType: String, activityKey: String, orderKey: Int64,
        receivedAt: Millis, body: [UInt8], headers: [String: String] = [:]
    ) {
        self.source = source
        self.eventID = eventID
        self.eventType = eventType
        self.activityKey = activityKey
        self.orderKey = orderKey
        self.receivedAt = receivedAt
        self.body = body
        self.headers = headers
    }
}

/// What `insertEvents` did with one event.
public enum InsertResult: Sendable, Hashable {
    /// Newly stored, with its sequence number in the store (the handle for marking it).
    case stored(sequence: Int64)
    /// An event with the same (source, eventID) was already stored; nothing changed.
    case duplicate
}
