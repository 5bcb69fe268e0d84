/// An APNs error reason (`{"reason": "…"}`), and what a sender should do about it.
///
/// The table is APNs's (see Apple's "Handling notification responses from APNs"); unknown
/// reasons are kept as they came and handled by their status.
public struct APNsReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let badCollapseId = APNsReason(rawValue: "BadCollapseId")
    public static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    public static let badMessageId = APNsReason(rawValue: "BadMessageId")
    public static let badPriority = APNsReason(rawValue: "BadPriority")
    public static let badTopic = APNsReason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    public static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    public static let missingTopic = APNsReason(rawValue: "MissingTopic")
    public static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")
    public static let badCertificate = APNsReason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    public static let forbidden = APNsReason(rawValue: "Forbidden")
    public static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIdInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIdInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")
    public static let badPath = APNsReason(rawValue: "BadPath")
    public static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    public static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    public static let unregistered = APNsReason(rawValue: "Unregistered")
    public static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")
    public static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    public static let internalServerError = APNsReason(rawValue: "InternalServerError")
    public static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    public static let shutdown = APNsReason(rawValue: "Shutdown")
}

/// What to do with a response.
public enum APNsDisposition: Sendable, Hashable {
    /// Delivered.
    case delivered
    /// Try again after a backoff; `newConnection` when APNs is shutting the connection down.
    case retry(newConnection: Bool)
    /// The provider token expired: sign a new one and retry once.
    case renewTokenAndRetry
    /// The token (activity) is gone or was never valid: stop sending to it.
    case tokenGone
    /// The setup is wrong (topic, key, environment): nothing will succeed until it is fixed.
    case configurationError(String)
    /// This push is wrong and will never succeed; later pushes may.
    case rejected

    /// Classifies a response by status and reason (docs/apns.md §4).
    public init(_ response: APNsResponse) {
        if response.isSuccess {
            self = .delivered
            return
        }
        let reason = response.reason
        switch response.status {
        case 410:
            self = .tokenGone
        case 429:
            self = .retry(newConnection: false)
        case 500:
            self = .retry(newConnection: false)
        case 503:
            self = .retry(newConnection: reason == .shutdown)
        case 403:
            if reason == .expiredProviderToken {
                self = .renewTokenAndRetry
            } else {
                self = .configurationError(Self.advice(for: reason))
            }
        case 400:
            switch reason {
            case .badDeviceToken?, .deviceTokenNotForTopic?:
                self = .tokenGone
            case .badTopic?, .topicDisallowed?, .missingTopic?, .invalidPushType?:
                self = .configurationError(Self.advice(for: reason))
            case .idleTimeout?:
                self = .retry(newConnection: true)
            default:
                self = .rejected
            }
        case 404, 405:
            self = .configurationError(Self.advice(for: reason))
        default:
            self = .rejected
        }
    }

    /// How to fix a configuration error, in a user's words.
    static func advice(for reason: APNsReason?) -> String {
        switch reason {
        case .badTopic?, .missingTopic?, .topicDisallowed?:
            return
                "APNs refused the topic: --topic must be the app's bundle id (Liveline adds .push-type.liveactivity), and the key's team must own the app"
        case .invalidPushType?:
            return "APNs refused apns-push-type liveactivity for this topic: check the bundle id"
        case .invalidProviderToken?, .unrelatedKeyIdInToken?:
            return
                "APNs refused the provider token: check --key-id (the 10-character Key ID of the .p8) and --team-id, and that the key is enabled for APNs"
        case .badEnvironmentKeyIdInToken?:
            return
                "the key is not enabled for this environment: try --env sandbox for development builds or --env production for TestFlight and App Store builds"
        case .missingProviderToken?, .badCertificate?, .badCertificateEnvironment?, .forbidden?:
            return
                "APNs refused the credentials (\(reason?.rawValue ?? "403")): Live Activities need token authentication with a .p8 key (--key, --key-id, --team-id)"
        case .badPath?, .methodNotAllowed?:
            return "APNs did not recognise the request path (\(reason?.rawValue ?? "")): check --apns-url"
        default:
            return "APNs refused the request (\(reason?.rawValue ?? "no reason given"))"
        }
    }
}
