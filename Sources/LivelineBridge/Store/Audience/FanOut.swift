import Foundation
import Liveline

/// A range of a fan-out's followers claimed by one instance: the push to send and, for each
/// follower in the range that takes it, where it goes. Followers with a pending exception
/// (retrying, catching up) are left out: their exception sends them the newest push instead.
public struct FanOutRange: Sendable, Hashable {
    public var fanOutID: Int64
    /// Followers with ids in `(fromID, toID]`.
    public var fromID: Int64
    public var toID: Int64
    public var push: OutboxPush
    public var targets: [FanOutTarget]
    /// The range was claimed before by an instance that did not finish it (it died): some of
    /// its devices may get the push twice, with the same timestamp, which they drop.
    public var resumed: Bool
}

/// One follower to send a push to.
public struct FanOutTarget: Sendable, Hashable {
    public var followerID: Int64
    public var token: String
    /// The push-to-start token (a start push), or the update token.
    public var isStartToken: Bool
    /// The follower's APNs environment; nil: the configuration's `apns.environment`.
    public var environment: APNsEnvironment?

    public init(followerID: Int64, token: String, isStartToken: Bool, environment: APNsEnvironment? = nil) {
        self.followerID = followerID
        self.token = token
        self.isStartToken = isStartToken
        self.environment = environment
    }
}

/// A follower whose exception is due: it is sent the key's newest push of its kind (a
/// catch-up after joining late, or a retry after 429 or 5xx).
public struct FollowerCatchUp: Sendable, Hashable {
    public var target: FanOutTarget
    public var activityKey: String
    /// The fan-out whose push it is sent (the key's newest of its kind).
    public var fanOutID: Int64
    public var push: OutboxPush
    public var attempts: Int
}

/// What became of one follower's push; ``FollowerStore/writeFanOut(_:outcomes:instance:now:)``
/// and ``FollowerStore/writeCatchUps(_:now:)`` write many in one transaction.
public enum FollowerOutcome: Sendable, Hashable {
    case sent
    /// The token is gone (410, BadDeviceToken): forget it, and the follower with its last token.
    case tokenGone(reason: String)
    /// Back off this token only (429, 5xx, a transport failure) until `retryAt`, or give up after
    /// `maxAttempts` (counted in the fan-out's failure summary).
    case retry(reason: String, error: String, retryAt: Millis, maxAttempts: Int)
    /// This push can never reach this device (another 4xx): counted in the failure summary.
    case rejected(reason: String)
    /// Sending to the follower's app and environment is halted (a setup error): it waits as an
    /// exception due at `until` (the next probe), its attempts unchanged, and is then sent the
    /// key's newest push; not a failure.
    case held(error: String, until: Millis)

    /// Whether the push reached APNs and was refused, or given up on (not sent, not waiting).
    var isFailure: Bool {
        switch self {
        case .sent, .held: false
        case .tokenGone, .retry, .rejected: true
        }
    }
}

/// One follower's answer, by id.
public struct FollowerAnswer: Sendable, Hashable {
    public var target: FanOutTarget
    public var outcome: FollowerOutcome

    public init(target: FanOutTarget, outcome: FollowerOutcome) {
        self.target = target
        self.outcome = outcome
    }
}

/// What recording a range did: whether the fan-out is now finished (and when its webhook came,
/// for the lag metric), and how many followers were pruned.
public struct FanOutProgress: Sendable, Hashable {
    public var finished: Bool
    public var receivedAt: Millis?
    public var pruned: Int
    public var gaveUp: Int
}

/// A fan-out's failures summed by APNs reason: one row per reason, with a few tokens (masked)
/// as a sample, instead of one dead letter per device.
public struct FanOutFailureSummary: Sendable, Hashable {
    public var fanOutID: Int64
    public var activityKey: String
    public var reason: String
    public var count: Int
    public var sample: [String]
    public var failedAt: Millis
}
