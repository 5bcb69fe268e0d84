import Foundation
import Liveline

/// A renewal a dispatch step decided for a key (`Renewal`): the engine's two pushes, which
/// `RenewalSender` sends to the key's own activity and to each follower that can be renewed.
public struct RenewalPushes: Sendable, Hashable {
    /// The key whose story renews.
    public var activityKey: String
    /// The successor's generation (`Push.generation`): 1 for the first renewal.
    public var generation: Int
    /// The successor's start, for the push-to-start token.
    public var start: OutboxPush
    /// The predecessor's end, for its update token; sent only once the start is taken.
    public var end: OutboxPush
    /// The engine's reason for the start ("renewal #1: successor starts"), for the history.
    public var startReason: String
    /// The engine's reason for the end, for the history.
    public var endReason: String

    /// A renewal with the parts given.
    public init(
        activityKey: String, generation: Int, start: OutboxPush, end: OutboxPush, startReason: String = "",
        endReason: String = ""
    ) {
        self.activityKey = activityKey
        self.generation = generation
        self.start = start
        self.end = end
        self.startReason = startReason
        self.endReason = endReason
    }

    /// The push of `kind`, with its reason.
    func push(_ kind: RenewalStep.Kind) -> (push: OutboxPush, reason: String) {
        kind == .start ? (start, startReason) : (end, endReason)
    }
}

/// One device to renew: the key's own activity, or a follower's. It has both tokens: one to
/// start the successor, and the predecessor's to end it.
public struct RenewalTarget: Sendable, Hashable {
    /// The follower's id in the store, or 0 for the key's own activity.
    public var followerID: Int64
    /// The push-to-start token the successor's start goes to.
    public var startToken: String
    /// The predecessor's update token, which its end goes to.
    public var updateToken: String
    /// The tokens' APNs environment; nil: the configuration's `apns.environment`.
    public var environment: APNsEnvironment?

    /// A target with the parts given.
    public init(followerID: Int64, startToken: String, updateToken: String, environment: APNsEnvironment? = nil) {
        self.followerID = followerID
        self.startToken = startToken
        self.updateToken = updateToken
        self.environment = environment
    }
}

/// A range of a renewal's devices claimed by one instance: the key's own activity (in the
/// first range) and the followers with ids in `(fromID, toID]` that can be renewed.
public struct RenewalRange: Sendable, Hashable {
    /// The renewal's row id.
    public var renewalID: Int64
    /// The renewal's pushes.
    public var pushes: RenewalPushes
    /// Followers after this id; -1 for the first range, which holds the key's own activity too.
    public var fromID: Int64
    /// The last follower id of the range, included.
    public var toID: Int64
    /// The devices of the range, in order.
    public var targets: [RenewalTarget]
    /// The range was claimed before by an instance that did not finish it (it died): whether
    /// its starts reached APNs is unknown, so none is sent again (a second start would be a
    /// second activity on the device). Its devices are counted in doubt, not renewed.
    public var resumed: Bool
}

/// One device's renewal step that is due: a start to try again (after 429, 5xx or a halt), or
/// the end its predecessor is owed once the successor's start was taken.
public struct RenewalStep: Sendable, Hashable {
    /// Which of the renewal's two pushes the step sends.
    public enum Kind: String, Sendable, Hashable {
        /// The successor's start.
        case start
        /// The predecessor's end.
        case end
    }

    /// The renewal's row id.
    public var renewalID: Int64
    /// The renewal's pushes.
    public var pushes: RenewalPushes
    /// The push the step sends.
    public var kind: Kind
    /// The device.
    public var target: RenewalTarget
    /// Attempts made before this one.
    public var attempts: Int
    /// A start step claimed before by an instance that died: in doubt, not sent again.
    public var inDoubt: Bool
    /// The step already waits for its halted app and environment (its hold is recorded).
    public var held = false

    /// The push the step sends.
    public var push: OutboxPush { kind == .start ? pushes.start : pushes.end }
}

/// What became of one device's renewal push.
public enum RenewalOutcome: Sendable, Hashable {
    /// APNs took the successor's start: the predecessor is owed its end, and the device waits
    /// for the update token its app reports for the successor.
    case started
    /// APNs took the predecessor's end (or its token is gone: nothing left to end).
    case ended
    /// Try again at `retryAt` (429, 5xx, a transport failure), or, when the answer never came
    /// (an end at a stop's cutoff), without counting the attempt.
    case retry(error: String, retryAt: Millis, counted: Bool)
    /// Sending to the device's app and environment is halted (APNs refused the setup): try
    /// again at `until`, after the probe, the attempt not counted.
    case held(error: String, until: Millis)
    /// The start cannot reach the device (refused, its token gone, retries ran out): the device
    /// keeps its activity until the system ends it. `forgetStartToken` when APNs says the
    /// push-to-start token is no longer valid.
    case refused(reason: String, forgetStartToken: Bool)
    /// The end could not be sent: the predecessor stays until the system ends it.
    case endFailed(reason: String)
    /// The start's answer never came (a stop's cutoff): in doubt, not sent again.
    case inDoubt
}

/// What one device's renewal push came to, with APNs' answer when one came: what the store
/// writes for it, in the renewal's state and in the delivery history.
public struct RenewalAnswer: Sendable, Hashable {
    /// What becomes of the device's renewal.
    public var outcome: RenewalOutcome
    /// APNs' answer (status, reason, `apns-id`), or the time of a transport failure; nil when
    /// nothing was sent (in doubt, or the cutoff came first).
    public var answer: PushAnswer?

    /// An answer with the parts given.
    public init(_ outcome: RenewalOutcome, answer: PushAnswer? = nil) {
        self.outcome = outcome
        self.answer = answer
    }
}

/// How a key's newest renewal stands, for `GET /v1/activities/{key}`.
public struct RenewalStatus: Sendable, Hashable {
    /// The successor's generation: 1 for the first renewal.
    public var generation: Int
    /// When the engine decided it.
    public var decidedAt: Millis
    /// Whether devices are still being renewed.
    public var running: Bool
    /// Devices whose successor APNs took.
    public var renewed: Int
    /// Devices whose successor could not be started; they keep their activity.
    public var refused: Int
    /// Devices whose start was in flight when an instance died; not sent again.
    public var inDoubt: Int
    /// Steps still to do: starts to retry, ends owed.
    public var pendingSteps: Int
}
