/// An error response as APNs sends it: an HTTP status and a `{"reason": …}` body.
///
/// The reasons are Apple's names, exactly; clients switch on them.
public struct APNsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code.
    public var status: Int
    /// Apple's reason string.
    public var reason: String

    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status) \(reason)" }

    // 400
    public static let badCollapseId = APNsError(status: 400, reason: "BadCollapseId")
    public static let badDeviceToken = APNsError(status: 400, reason: "BadDeviceToken")
    public static let badExpirationDate = APNsError(status: 400, reason: "BadExpirationDate")
    public static let badMessageId = APNsError(status: 400, reason: "BadMessageId")
    public static let badPriority = APNsError(status: 400, reason: "BadPriority")
    public static let badTopic = APNsError(status: 400, reason: "BadTopic")
    public static let deviceTokenNotForTopic = APNsError(status: 400, reason: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNsError(status: 400, reason: "DuplicateHeaders")
    public static let invalidPushType = APNsError(status: 400, reason: "InvalidPushType")
    public static let missingDeviceToken = APNsError(status: 400, reason: "MissingDeviceToken")
    public static let missingTopic = APNsError(status: 400, reason: "MissingTopic")
    public static let payloadEmpty = APNsError(status: 400, reason: "PayloadEmpty")
    // 400, broadcast
    public static let missingChannelId = APNsError(status: 400, reason: "MissingChannelId")
    public static let badChannelId = APNsError(status: 400, reason: "BadChannelId")
    public static let channelNotRegistered = APNsError(status: 400, reason: "ChannelNotRegistered")
    public static let cannotCreateChannelConfig = APNsError(status: 400, reason: "CannotCreateChannelConfig")
    public static let topicMismatch = APNsError(status: 400, reason: "TopicMismatch")
    // 403
    public static let expiredProviderToken = APNsError(status: 403, reason: "ExpiredProviderToken")
    public static let invalidProviderToken = APNsError(status: 403, reason: "InvalidProviderToken")
    public static let missingProviderToken = APNsError(status: 403, reason: "MissingProviderToken")
    // 404, 405, 410, 413
    public static let badPath = APNsError(status: 404, reason: "BadPath")
    public static let methodNotAllowed = APNsError(status: 405, reason: "MethodNotAllowed")
    public static let unregistered = APNsError(status: 410, reason: "Unregistered")
    public static let payloadTooLarge = APNsError(status: 413, reason: "PayloadTooLarge")
    // 429, 500, 503
    public static let tooManyProviderTokenUpdates = APNsError(status: 429, reason: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsError(status: 429, reason: "TooManyRequests")
    public static let internalServerError = APNsError(status: 500, reason: "InternalServerError")
    public static let serviceUnavailable = APNsError(status: 503, reason: "ServiceUnavailable")
    public static let shutdown = APNsError(status: 503, reason: "Shutdown")
}
