import Liveline

/// One activity as the device shows it, for `GET /activities` and ``MockAPNsServer/activities()``.
public struct ActivitySnapshot: Sendable, Hashable, Encodable {
    /// The mock's id for the activity: its update token for activities the app started, or
    /// `start:<push-to-start token prefix>:<n>` for activities started by push.
    public var id: String
    /// The token updates go to; for a push-started activity, the one `input-push-token` made.
    public var updateToken: String?
    public var pushToStartToken: String?
    /// Broadcast channels it follows.
    public var channels: [String]
    public var attributesType: String?
    public var attributes: JSONValue?
    /// The content-state currently shown, as the sender wrote it.
    public var contentState: JSONValue?
    public var lifecycle: ActivityLifecycle
    public var relevanceScore: Double?
    /// UNIX milliseconds.
    public var staleDate: Millis?
    /// UNIX milliseconds.
    public var dismissalDate: Millis?
    /// UNIX milliseconds.
    public var startedAt: Millis?
    /// UNIX milliseconds.
    public var endedAt: Millis?
    /// The newest rendered `timestamp`, UNIX seconds.
    public var lastTimestamp: Double?
    /// Whole priority-10 pushes left in the budget now.
    public var budgetRemaining: Int
    public var counters: DeviceCounts
    /// Why the last push did not render; empty after a rendered one.
    public var lastReasons: [String]
    /// The last alert shown.
    public var lastAlert: JSONValue?

    enum CodingKeys: String, CodingKey {
        case id, channels, attributes, lifecycle, counters
        case updateToken = "update-token"
        case pushToStartToken = "push-to-start-token"
        case attributesType = "attributes-type"
        case contentState = "content-state"
        case relevanceScore = "relevance-score"
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case startedAt = "started-at"
        case endedAt = "ended-at"
        case lastTimestamp = "last-timestamp"
        case budgetRemaining = "budget-remaining"
        case lastReasons = "last-reasons"
        case lastAlert = "last-alert"
    }
}
