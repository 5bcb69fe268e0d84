/// A push to one device token that passed APNs's checks.
struct DevicePushRequest {
    /// The token, lowercase hex.
    var token: String
    var topic: String
    var priority: Int
    var apnsID: String?
    /// What the device reads from the body, read as the body was checked.
    var payload: LiveActivityPayload
    var bodyText: String
    /// How the provider token departs from Apple's example (``TokenShape``).
    var warnings: [String]
}

/// A broadcast push that passed the checks that need no channel lookup.
struct BroadcastPushRequest {
    var bundleID: String
    var channelID: String
    var priority: Int
    var expiration: Int64?
    var requestID: String?
    var body: JSONValue
    var bodyText: String
    /// The byte offset of a lone surrogate escape in the body, which the device cannot decode.
    var loneSurrogate: Int?
    /// How the provider token departs from Apple's example (``TokenShape``).
    var warnings: [String]
}

/// What a request asks for, once validated.
enum ValidatedRequest {
    case device(DevicePushRequest)
    case broadcast(BroadcastPushRequest)
    case createChannel(bundleID: String, policy: Int, requestID: String?)
    case readChannel(bundleID: String, channelID: String, requestID: String?)
    case deleteChannel(bundleID: String, channelID: String, requestID: String?)
    case listChannels(bundleID: String, requestID: String?)
}
