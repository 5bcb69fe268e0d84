import Foundation

/// One key's audience as the dashboard draws it: its followers by state and its newest fan-out.
/// Counts only, so a frame stays small whatever the number of followers.
public struct DashboardAudience: Sendable, Hashable, Encodable {
    /// The sender's key (a match, a flash sale).
    public var key: String
    /// Followers with an update token (each sent every push).
    public var updating: Int
    /// Followers with only a push-to-start token (started with the story).
    public var awaitingStart: Int
    /// Followers reached through the key's broadcast channel.
    public var onChannel: Int
    /// Followers backing off after a failed push, and those waiting for a catch-up push.
    public var retrying: Int
    public var catchingUp: Int
    /// Followers whose start is in doubt: its sender stopped between sending it and recording
    /// APNs' answer, so it is not sent again until the app reports an update token (the phone
    /// has it) or a new push-to-start token (it has not).
    public var inDoubt: Int
    /// Followers removed by the newest fan-outs because APNs said their token is gone.
    public var removed: Int
    /// One follower's token (update, else push-to-start), whose device the page draws as the
    /// audience's sample.
    public var sampleToken: String?
    public var fanOut: FanOut?
    /// One Android follower's phone, drawn beside the sample's Lock Screen; nil when no follower
    /// is an Android phone.
    public var android: AndroidPhone?

    /// What an Android phone shows of the key's Live Update: the status-bar chip and the
    /// promoted notification, as the sender's phone model has them (the mock FCM's).
    public struct AndroidPhone: Sendable, Hashable, Encodable {
        /// The follower's device id.
        public var device: String
        /// Whether the phone shows the Live Update at all (nil fields below when not).
        public var shown: Bool
        public var title: String?
        public var text: String?
        /// The chip as the status bar reads it (cut to what Android shows); nil when not promoted.
        public var chip: String?
        /// The progress bar: value and maximum; nil without one.
        public var progress: Int?
        public var progressMax: Int?
        /// Whether the notification is promoted (top of the shade, lock screen, chip), and why not.
        public var promoted: Bool
        public var notPromotedBecause: String?
        /// The small icon's name and the notification channel.
        public var smallIcon: String?
        public var channel: String?
        /// Whether the story ended (the notification is removed at its dismissal time).
        public var ended: Bool

        public init(
            device: String, shown: Bool, title: String? = nil, text: String? = nil, chip: String? = nil,
            progress: Int? = nil, progressMax: Int? = nil, promoted: Bool = false, notPromotedBecause: String? = nil,
            smallIcon: String? = nil, channel: String? = nil, ended: Bool = false
        ) {
            self.device = device
            self.shown = shown
            self.title = title
            self.text = text
            self.chip = chip
            self.progress = progress
            self.progressMax = progressMax
            self.promoted = promoted
            self.notPromotedBecause = notPromotedBecause
            self.smallIcon = smallIcon
            self.channel = channel
            self.ended = ended
        }

        enum CodingKeys: String, CodingKey {
            case device, shown, title, text, chip, progress, promoted, channel, ended
            case progressMax = "progress-max"
            case notPromotedBecause = "not-promoted-because"
            case smallIcon = "small-icon"
        }
    }

    /// The newest fan-out of the key: which push, how far it got, how fast, what failed.
    public struct FanOut: Sendable, Hashable, Encodable {
        /// `start`, `update` or `end`.
        public var event: String
        /// `running`, `done`, or `superseded` (a newer push took over the followers not reached).
        public var state: String
        /// The push's content-state as compact JSON, shortened.
        public var contentState: String?
        /// Followers answered (sent or failed) of those it goes to.
        public var answered: Int
        public var audience: Int
        public var failed: Int
        /// Pushes answered per second: now while running, on average once finished; nil when
        /// not measured.
        public var pushesPerSecond: Double?
        /// Seconds from the webhook stored to the last answer (to now while running).
        public var lagSeconds: Double?
        /// Failed pushes by APNs reason, newest fan-outs first.
        public var failures: [String: Int]

        public init(
            event: String, state: String, contentState: String?, answered: Int, audience: Int, failed: Int,
            pushesPerSecond: Double?, lagSeconds: Double?, failures: [String: Int]
        ) {
            self.event = event
            self.state = state
            self.contentState = contentState
            self.answered = answered
            self.audience = audience
            self.failed = failed
            self.pushesPerSecond = pushesPerSecond
            self.lagSeconds = lagSeconds
            self.failures = failures
        }

        enum CodingKeys: String, CodingKey {
            case event, state, answered, audience, failed, failures
            case contentState = "content-state"
            case pushesPerSecond = "pushes-per-second"
            case lagSeconds = "lag-seconds"
        }
    }

    public init(
        key: String, updating: Int, awaitingStart: Int, onChannel: Int, retrying: Int, catchingUp: Int, inDoubt: Int,
        removed: Int, sampleToken: String?, fanOut: FanOut?
    ) {
        self.key = key
        self.updating = updating
        self.awaitingStart = awaitingStart
        self.onChannel = onChannel
        self.retrying = retrying
        self.catchingUp = catchingUp
        self.inDoubt = inDoubt
        self.removed = removed
        self.sampleToken = sampleToken
        self.fanOut = fanOut
    }

    /// Every follower, whatever its state.
    public var total: Int { updating + awaitingStart + onChannel }

    enum CodingKeys: String, CodingKey {
        case key, updating, retrying, removed, total
        case awaitingStart = "awaiting-start"
        case onChannel = "on-channel"
        case catchingUp = "catching-up"
        case inDoubt = "in-doubt"
        case sampleToken = "sample-token"
        case fanOut = "fan-out"
        case android
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(total, forKey: .total)
        try container.encode(updating, forKey: .updating)
        try container.encode(awaitingStart, forKey: .awaitingStart)
        try container.encode(onChannel, forKey: .onChannel)
        try container.encode(retrying, forKey: .retrying)
        try container.encode(catchingUp, forKey: .catchingUp)
        try container.encode(inDoubt, forKey: .inDoubt)
        try container.encode(removed, forKey: .removed)
        try container.encodeIfPresent(sampleToken, forKey: .sampleToken)
        try container.encodeIfPresent(fanOut, forKey: .fanOut)
        try container.encodeIfPresent(android, forKey: .android)
    }
}
