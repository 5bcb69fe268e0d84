/// An APNs error reason (`{"reason": "…"}`), kept as it came: a reason not named here is read
/// by its status. What each one means for a sender is ``PushServiceAnswer``'s (docs/answers.md).
public struct APNsReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// 400: the `apns-collapse-id` is longer than 64 bytes.
    public static let badCollapseId = APNsReason(rawValue: "BadCollapseId")
    /// 400: the device token is malformed, or is for the other environment (sandbox or production).
    public static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    /// 400: the `apns-expiration` is not a valid time.
    public static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    /// 400: the `apns-id` is not a UUID.
    public static let badMessageId = APNsReason(rawValue: "BadMessageId")
    /// 400: the `apns-priority` is not 1, 5 or 10.
    public static let badPriority = APNsReason(rawValue: "BadPriority")
    /// 400: the `apns-topic` is not valid.
    public static let badTopic = APNsReason(rawValue: "BadTopic")
    /// 400: the device token belongs to another app than the topic names.
    public static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    /// 400: a header appears more than once.
    public static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    /// 400: the connection was idle too long; APNs closes it.
    public static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    /// 400: the `apns-push-type` is missing or does not fit the payload and topic.
    public static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    /// 400: the path has no device token.
    public static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    /// 400: the `apns-topic` is required (the key serves more than one topic) and missing.
    public static let missingTopic = APNsReason(rawValue: "MissingTopic")
    /// 400: the body is empty.
    public static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    /// 400: the key may not push to this topic.
    public static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")
    /// 403: the client certificate is not valid.
    public static let badCertificate = APNsReason(rawValue: "BadCertificate")
    /// 403: the client certificate is for the other environment.
    public static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    /// 403: the provider token is older than an hour; sign a new one.
    public static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    /// 403: the action is not allowed.
    public static let forbidden = APNsReason(rawValue: "Forbidden")
    /// 403: the provider token's signature or claims are wrong (the key, Key ID or Team ID).
    public static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    /// 403: no provider token and no client certificate.
    public static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    /// 403: the token's Key ID is not the one this connection started with.
    public static let unrelatedKeyIdInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    /// 403: the token's Key ID is for the other environment.
    public static let badEnvironmentKeyIdInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")
    /// 404: the request path is not one APNs serves.
    public static let badPath = APNsReason(rawValue: "BadPath")
    /// 405: the method is not POST (or the one a channel call takes).
    public static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    /// 410: the device token has expired; stop sending to it.
    public static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    /// 410: the device token is no longer active for the topic (the app was removed, or the
    /// activity ended); stop sending to it.
    public static let unregistered = APNsReason(rawValue: "Unregistered")
    /// 413: the payload is over the limit (4096 bytes to a device, 5120 to a channel).
    public static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")
    /// 429: the provider token changed more often than every 20 minutes on one connection.
    public static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    /// 429: too many requests to the same device token in a short time.
    public static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    /// 500: APNs failed internally; try again later.
    public static let internalServerError = APNsReason(rawValue: "InternalServerError")
    /// 503: APNs is unavailable; try again later.
    public static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    /// 503: this APNs server is shutting down; send on another connection.
    public static let shutdown = APNsReason(rawValue: "Shutdown")
    // Broadcasts and channels (docs/apns.md §6.2).
    /// 400: a broadcast from an app whose App ID lacks the broadcast capability.
    public static let featureNotEnabled = APNsReason(rawValue: "FeatureNotEnabled")
    /// 400: a broadcast without `apns-channel-id`.
    public static let missingChannelId = APNsReason(rawValue: "MissingChannelId")
    /// 400: `apns-channel-id` is not a valid channel id.
    public static let badChannelId = APNsReason(rawValue: "BadChannelId")
    /// 400: the channel was deleted (or never created); register a new one.
    public static let channelNotRegistered = APNsReason(rawValue: "ChannelNotRegistered")
    /// 400: APNs could not create the channel's configuration.
    public static let cannotCreateChannelConfig = APNsReason(rawValue: "CannotCreateChannelConfig")
    /// 400: the channel belongs to another app than the request's topic.
    public static let topicMismatch = APNsReason(rawValue: "TopicMismatch")
}
