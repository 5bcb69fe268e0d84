import LivelineCore

/// Who a message is for, as the request named it.
public enum FCMRecipient: Sendable, Hashable {
    case token(String)
    case fid(String)
    case topic(String)
    case condition(String)
}

/// A `messages:send` request the mock accepted: what FCM would deliver.
public struct ValidatedFCMMessage: Sendable, Hashable {
    public var project: String
    public var recipient: FCMRecipient
    /// `message.data`, replaced by `android.data` when the request has one (as FCM does).
    public var data: FCMData
    /// `android.priority`; data messages default to `NORMAL`.
    public var priority: FCMPriority
    /// `android.ttl` in milliseconds; FCM's default is 4 weeks.
    public var ttl: Millis
    public var collapseKey: String?
    /// `validate_only`: checked, never delivered.
    public var validateOnly: Bool
    /// The request has a `notification` (or `android.notification`): the system shows it, not the app.
    public var hasNotification: Bool

    public init(
        project: String, recipient: FCMRecipient, data: FCMData, priority: FCMPriority = .normal,
        ttl: Millis = 28 * 86_400_000, collapseKey: String? = nil, validateOnly: Bool = false,
        hasNotification: Bool = false
    ) {
        self.project = project
        self.recipient = recipient
        self.data = data
        self.priority = priority
        self.ttl = ttl
        self.collapseKey = collapseKey
        self.validateOnly = validateOnly
        self.hasNotification = hasNotification
    }
}
