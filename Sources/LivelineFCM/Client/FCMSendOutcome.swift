/// What became of one message after ``FCMClient`` tried it as often as its policy allows.
public struct FCMSendOutcome: Sendable, Hashable, CustomStringConvertible {
    /// What to do with the message and its target now: delivered, forget the token, fix the
    /// configuration, drop this message, or (after the last attempt) try again later.
    public var disposition: FCMDisposition
    /// FCM's last error, when it answered one.
    public var error: FCMError?
    /// Why there was no answer at the last attempt (a refused connection, a timeout, an access
    /// token that could not be had), in words.
    public var failure: String?
    /// How many times the message was sent (a resend after renewing the access token counts).
    public var attempts: Int

    public init(disposition: FCMDisposition, error: FCMError? = nil, failure: String? = nil, attempts: Int) {
        self.disposition = disposition
        self.error = error
        self.failure = failure
        self.attempts = attempts
    }

    /// Whether FCM accepted the message.
    public var isDelivered: Bool {
        if case .delivered = disposition { return true }
        return false
    }

    public var description: String {
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        switch disposition {
        case .delivered(let name): return "delivered as \(name) (\(tries))"
        case .retry:
            return "not delivered after \(tries): \(failure ?? error?.description ?? "FCM asked to retry later")"
        case .renewTokenAndRetry: return "FCM refused the access token twice: \(error?.description ?? "401")"
        case .tokenGone: return "the app instance is gone: \(error?.description ?? "")"
        case .configurationError(let fix): return fix
        case .rejected: return "FCM rejected the message: \(error?.description ?? failure ?? "")"
        }
    }
}
