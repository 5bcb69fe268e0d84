/// What APNs answered.
public struct APNsResponse: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status: 200 on success.
    public var status: Int
    /// `apns-id`, echoed or assigned by APNs.
    public var apnsID: String?
    /// `apns-unique-id` (development environment only).
    public var uniqueID: String?
    /// `apns-channel-id`, for channel creation.
    public var channelID: String?
    /// `apns-request-id`, for broadcasts.
    public var requestID: String?
    /// The error reason, from the JSON body `{"reason": …}`.
    public var reason: APNsReason?
    /// For 410: when the token stopped being valid, in milliseconds.
    public var timestamp: Int64?
    /// `retry-after`, as sent (seconds or an HTTP date): APNs sends none, a proxy in front of it
    /// may, and FCM backs off by it after 429 and 503 (``PushServiceAnswer`` honours it).
    public var retryAfter: String?
    /// The body, for calls that return data (channel listings).
    public var body: [UInt8]

    /// An answer with the parts given; the client builds these from APNs's frames.
    public init(
        status: Int, apnsID: String? = nil, uniqueID: String? = nil, channelID: String? = nil, requestID: String? = nil,
        reason: APNsReason? = nil, timestamp: Int64? = nil, retryAfter: String? = nil, body: [UInt8] = []
    ) {
        self.status = status
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.channelID = channelID
        self.requestID = requestID
        self.reason = reason
        self.timestamp = timestamp
        self.retryAfter = retryAfter
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    public var description: String {
        reason.map { "\(status) \($0.rawValue)" } ?? "\(status)"
    }
}
