/// The `errorCode` of FCM's `google.firebase.fcm.v1.FcmError` detail: what went wrong, in FCM's
/// own terms. Unknown codes are kept as they came.
public struct FCMErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let unspecified = FCMErrorCode(rawValue: "UNSPECIFIED_ERROR")
    /// The request is malformed: a bad field, a data message too large, a bad registration token.
    public static let invalidArgument = FCMErrorCode(rawValue: "INVALID_ARGUMENT")
    /// The app instance is gone: uninstalled, or the token expired.
    public static let unregistered = FCMErrorCode(rawValue: "UNREGISTERED")
    /// The token belongs to another Firebase project than the service account's.
    public static let senderIDMismatch = FCMErrorCode(rawValue: "SENDER_ID_MISMATCH")
    /// The project's quota or the device's message rate is exceeded; back off (`Retry-After`).
    public static let quotaExceeded = FCMErrorCode(rawValue: "QUOTA_EXCEEDED")
    /// FCM is overloaded; back off (`Retry-After`).
    public static let unavailable = FCMErrorCode(rawValue: "UNAVAILABLE")
    /// FCM failed; retry with back-off.
    public static let `internal` = FCMErrorCode(rawValue: "INTERNAL")
    /// The APNs certificate or web push key uploaded to Firebase is missing or invalid.
    public static let thirdPartyAuthError = FCMErrorCode(rawValue: "THIRD_PARTY_AUTH_ERROR")
}
