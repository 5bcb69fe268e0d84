/// What a push service said about one request, in the few kinds of answer a sender acts on.
///
/// It is the seam between a service's own answers and ``AnswerPolicy``: an APNs answer or a
/// transport failure maps here (``init(_:)``, and docs/answers.md lists every APNs reason), and
/// another push service's answers (FCM's) map to the same kinds, so what the senders do about
/// an answer, halting included, is written once.
public enum PushServiceAnswer: Sendable, Hashable {
    /// Accepted for delivery.
    case accepted
    /// Too many requests (to one token, or too many provider-token changes): later, at the
    /// service's pace; `retryAfter` when the service (or a proxy in front of it) said how long.
    case throttled(reason: String, retryAfter: Duration?)
    /// The service failed, is going away, or could not be reached: later, perhaps on a new
    /// connection.
    case unavailable(reason: String, retryAfter: Duration?)
    /// The credential the request carried expired: sign (or fetch) a new one and send again.
    case credentialExpired(ExpiredCredential)
    /// The device token is not, or no longer, valid for this app and environment.
    case tokenInvalid(TokenProblem)
    /// This request can never succeed as it is (malformed, too large); other requests may.
    case requestInvalid(reason: String)
    /// The setup is wrong (credentials, topic, capability, endpoint): nothing of this app in
    /// this environment succeeds until it is fixed.
    case misconfigured(ConfigurationProblem)

    /// The service's reason, as it named it (or a short name for a transport failure).
    public var reason: String? {
        switch self {
        case .accepted: nil
        case .throttled(let reason, _), .unavailable(let reason, _), .requestInvalid(let reason):
            reason
        case .credentialExpired(let credential): credential.reason
        case .tokenInvalid(let problem): problem.reason
        case .misconfigured(let problem): problem.reason
        }
    }

    /// Whether the answer shows that the service took the request's credentials and app: an
    /// acceptance, or a refusal about this token or this push alone. A halted sender resumes on
    /// such an answer; an outage or an expired credential proves nothing either way.
    public var provesSetup: Bool {
        switch self {
        case .accepted, .throttled, .tokenInvalid, .requestInvalid: true
        case .unavailable, .credentialExpired, .misconfigured: false
        }
    }
}

/// A credential the service called expired (APNs' provider token, FCM's access token), and what
/// it means when a credential renewed a moment ago is refused as well: then renewing again cannot
/// help, and the setup (or the clock) is what to fix.
public struct ExpiredCredential: Sendable, Hashable {
    /// The service's reason (`ExpiredProviderToken`, `UNAUTHENTICATED`).
    public var reason: String
    /// The HTTP status it came with.
    public var status: Int
    /// How to fix it when it happens again right after a renewal, in a user's words.
    public var fixWhenRepeated: String

    /// An expiry with the parts given.
    public init(reason: String, status: Int, fixWhenRepeated: String) {
        self.reason = reason
        self.status = status
        self.fixWhenRepeated = fixWhenRepeated
    }

    /// The setup problem a repeated expiry is.
    public var repeatedProblem: ConfigurationProblem {
        ConfigurationProblem(reason: reason, status: status, fix: fixWhenRepeated)
    }
}

/// Why a device token cannot be sent to.
public struct TokenProblem: Sendable, Hashable, CustomStringConvertible {
    /// The service's reason (`Unregistered`, `BadDeviceToken`, …).
    public var reason: String
    /// The HTTP status it came with.
    public var status: Int
    /// The service gives this answer to a token of its other environment too (APNs'
    /// `BadDeviceToken`: a sandbox token sent to production, or the reverse).
    public var mayBelongToOtherEnvironment: Bool

    /// A problem with the parts given.
    public init(reason: String, status: Int, mayBelongToOtherEnvironment: Bool = false) {
        self.reason = reason
        self.status = status
        self.mayBelongToOtherEnvironment = mayBelongToOtherEnvironment
    }

    public var description: String { "\(status) \(reason)" }
}

/// A setup problem that stops sending until it is fixed: what the service said, and how to fix it.
public struct ConfigurationProblem: Sendable, Hashable, CustomStringConvertible {
    /// The service's reason (`InvalidProviderToken`), or the kind of transport failure (`TLS`).
    public var reason: String
    /// The HTTP status; nil when no answer came (a certificate that is not trusted).
    public var status: Int?
    /// How to fix it, in a user's words.
    public var fix: String

    /// A problem with the parts given.
    public init(reason: String, status: Int?, fix: String) {
        self.reason = reason
        self.status = status
        self.fix = fix
    }

    /// `403 InvalidProviderToken: <the fix>`; without a status, the fix alone (a transport
    /// failure's fix says what failed).
    public var description: String {
        status.map { "\($0) \(reason): \(fix)" } ?? fix
    }
}
