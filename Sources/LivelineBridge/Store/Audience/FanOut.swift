import Foundation
import Liveline

/// A range of a fan-out's followers claimed by one instance: the push to send and, for each
/// follower in the range that takes it, where it goes. Followers with a pending exception
/// (retrying, catching up) are left out: their exception sends them the newest push instead.
public struct FanOutRange: Sendable, Hashable {
    /// The fan-out the range belongs to.
    public var fanOutID: Int64
    /// Followers with ids in `(fromID, toID]`.
    public var fromID: Int64
    /// The last follower id of the range, included.
    public var toID: Int64
    /// The push every follower of the range is sent.
    public var push: OutboxPush
    /// Where the push goes, one entry per follower that takes it.
    public var targets: [FanOutTarget]
    /// The range was claimed before by an instance that did not finish it (it died): some of
    /// its devices may get the push twice, with the same timestamp, which they drop.
    public var resumed: Bool
}

/// One follower to send a push to.
public struct FanOutTarget: Sendable, Hashable {
    /// The follower's id in the store.
    public var followerID: Int64
    /// The device token to send to: an APNs token in hex, or an Android phone's FCM token
    /// (`fid:` and an installation ID, or a registration token).
    public var token: String
    /// The push-to-start token (a start push), or the update token; false for an FCM token.
    public var isStartToken: Bool
    /// The follower's APNs environment; nil: the configuration's `apns.environment`.
    public var environment: APNsEnvironment?
    /// The phone's platform: an APNs push to an iPhone, an FCM message to an Android phone.
    public var platform: Platform

    /// A target with the parts given.
    public init(
        followerID: Int64, token: String, isStartToken: Bool, environment: APNsEnvironment? = nil,
        platform: Platform = .ios
    ) {
        self.followerID = followerID
        self.token = token
        self.isStartToken = isStartToken
        self.environment = environment
        self.platform = platform
    }
}

/// A follower whose exception is due: it is sent the key's newest push of its kind (a
/// catch-up after joining late, or a retry after 429 or 5xx).
public struct FollowerCatchUp: Sendable, Hashable {
    /// Who is sent the push, and with which token.
    public var target: FanOutTarget
    /// The key the follower follows.
    public var activityKey: String
    /// The fan-out whose push it is sent (the key's newest of its kind).
    public var fanOutID: Int64
    /// The push to send.
    public var push: OutboxPush
    /// How many times this follower's exception has been tried before.
    public var attempts: Int
}

/// What became of one follower's push; ``FanOutStore/writeFanOut(_:answers:instance:now:)``
/// and ``FanOutStore/writeCatchUps(_:now:)`` write many in one transaction.
public enum FollowerOutcome: Sendable, Hashable {
    /// APNs accepted the push.
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
    /// The follower and the token the push went to.
    public var target: FanOutTarget
    /// What became of the push.
    public var outcome: FollowerOutcome

    /// The answer `outcome` for `target`.
    public init(target: FanOutTarget, outcome: FollowerOutcome) {
        self.target = target
        self.outcome = outcome
    }
}

/// What recording a range did: whether the fan-out is now finished (and when its webhook came,
/// for the lag metric), and how many followers were pruned.
public struct FanOutProgress: Sendable, Hashable {
    /// Whether every range of the fan-out is now recorded.
    public var finished: Bool
    /// When the fan-out's webhook was received, once it is finished: the lag metric's start.
    public var receivedAt: Millis?
    /// Followers forgotten because their token is gone.
    public var pruned: Int
    /// Followers whose retries ran out.
    public var gaveUp: Int
}

/// A fan-out's failures summed by APNs reason: one row per reason, with a few tokens (masked)
/// as a sample, instead of one dead letter per device.
public struct FanOutFailureSummary: Sendable, Hashable {
    /// The fan-out that failed (for a renewal's push to the followers, its history entry).
    public var fanOutID: Int64
    /// The key whose followers it was sent to.
    public var activityKey: String
    /// APNs's reason, or the transport failure, shared by the failures counted here.
    public var reason: String
    /// How many followers failed for this reason.
    public var count: Int
    /// A few of their tokens, masked, to look up.
    public var sample: [String]
    /// When the last of them failed.
    public var failedAt: Millis
    /// A few of the followers it failed for, by device (those still following), for their
    /// `GET …/followers/{device}`.
    public var devices: [String] = []
}
