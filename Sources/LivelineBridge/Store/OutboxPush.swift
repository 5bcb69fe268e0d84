import Foundation
import Liveline

/// A push waiting to be sent: the bytes are final, built by the dispatcher. Where it goes is
/// read from the activity when it is sent, so a token registered (or replaced) after the push
/// was decided still receives it.
public struct OutboxPush: Sendable, Hashable {
    /// The activity the push belongs to; its targets are read from the registry when it is sent.
    public var activityKey: String
    /// The exact body, `{"aps":{…}}`.
    public var payload: [UInt8]
    /// The request's headers, typed: the topic, the priority and the expiration (the push type
    /// is always `liveactivity`, and no collapse id is sent). Stored in columns of their own,
    /// and sent as they are (a broadcast takes the bundle id from the topic).
    public var headers: PushHeaders
    /// When the push is due, in UNIX milliseconds; it is not sent before.
    public var dueAt: Millis
    /// A start goes to the push-to-start token; an update or end to the update token or channel.
    public var kind: PushEvent
    /// When the earliest webhook this push carries was received, for the receipt-to-APNs
    /// latency; nil for pushes no webhook caused (heartbeats, the 8-hour end).
    public var receivedAt: Millis?
    /// The same decision for Android phones, when the story has an `android:` block: the FCM
    /// message without its target, `{"data":{…},"android":{…}}` (`FCMMessageFields`), sent
    /// to a fan-out's Android followers and to a key registered with an `fcm-token`. Nil otherwise.
    public var android: [UInt8]?

    /// A push with the parts given.
    public init(
        activityKey: String, payload: [UInt8], headers: PushHeaders, dueAt: Millis, kind: PushEvent = .update,
        receivedAt: Millis? = nil, android: [UInt8]? = nil
    ) {
        self.activityKey = activityKey
        self.payload = payload
        self.headers = headers
        self.dueAt = dueAt
        self.kind = kind
        self.receivedAt = receivedAt
        self.android = android
    }
}

/// A push claimed for sending, with the attempts already made and where it goes now.
public struct ClaimedPush: Sendable, Hashable {
    /// The push's row id in the outbox.
    public var id: Int64
    /// The push.
    public var push: OutboxPush
    /// Attempts made before this one.
    public var attempts: Int
    /// The activity's targets at the claim.
    public var target: ActivityTargets
}

/// Where an activity's pushes can go.
public struct ActivityTargets: Sendable, Hashable {
    /// The running activity's update token (`pushTokenUpdates`).
    public var updateToken: String?
    /// The app's push-to-start token (`pushToStartTokenUpdates`), for start pushes.
    public var pushToStartToken: String?
    /// A broadcast channel the activity subscribes to, instead of an update token.
    public var channelID: String?
    /// The APNs environment of its tokens and channel; nil: the configuration's `apns.environment`.
    public var environment: APNsEnvironment?
    /// An Android phone's FCM registration token, or `fid:` and its Firebase installation ID,
    /// instead of the APNs tokens and channel: every push (start, update, end) goes to it
    /// through FCM, as the push's FCM message (``OutboxPush/android``).
    public var fcmToken: String?

    /// Targets with the parts given; none at all means nowhere to send yet.
    public init(
        updateToken: String? = nil, pushToStartToken: String? = nil, channelID: String? = nil,
        environment: APNsEnvironment? = nil, fcmToken: String? = nil
    ) {
        self.updateToken = updateToken
        self.pushToStartToken = pushToStartToken
        self.channelID = channelID
        self.environment = environment
        self.fcmToken = fcmToken
    }

    /// Whether a push can go anywhere at all.
    public var isEmpty: Bool { updateToken == nil && pushToStartToken == nil && channelID == nil && fcmToken == nil }

    /// The phone's platform: Android with an FCM token, iOS otherwise.
    public var platform: Platform { fcmToken == nil ? .ios : .android }
}

/// What APNs or FCM answered (or the transport said) for one push.
public struct PushAnswer: Sendable, Hashable {
    /// When the answer came, or when the attempt failed.
    public var at: Millis
    /// The HTTP status; 0 when no answer came.
    public var status: Int
    /// APNs' `reason`, or FCM's error status (`UNREGISTERED`), if any.
    public var reason: String?
    /// APNs's `apns-id` for the push, or the name FCM gave the message, when it answered.
    public var apnsID: String?
    /// Who answered: APNs (`ios`) or FCM (`android`).
    public var platform: Platform

    /// An answer with the parts given.
    public init(at: Millis, status: Int, reason: String? = nil, apnsID: String? = nil, platform: Platform = .ios) {
        self.at = at
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.platform = platform
    }
}

/// What to write for one sent push; ``OutboxStore/writePushOutcomes(_:)`` writes many in one
/// transaction.
public enum PushOutcome: Sendable, Hashable {
    /// Delivered: the push leaves the outbox and becomes its activity's last push.
    case sent(Int64, answer: PushAnswer)
    /// An attempt failed: retried at `retryAt`, or moved to the dead letters once `maxAttempts`
    /// attempts have failed (keeping the push's last due time; failed at the answer's time, or
    /// `retryAt` when nothing answered). The error is recorded on the activity.
    case failed(Int64, answer: PushAnswer?, error: String, retryAt: Millis, maxAttempts: Int)
    /// An attempt failed that no retry can fix (the token is gone, the push is refused): the
    /// push becomes a dead letter at once and, with `forgetToken`, the token it went to is
    /// cleared, so nothing more is sent there until a new one is registered.
    case undeliverable(Int64, answer: PushAnswer?, error: String, forgetToken: Bool, now: Millis)
    /// Sending is halted for the push's app and environment (a setup error): the push waits,
    /// due again at `until`, and the attempt is not counted. The error is recorded on the activity.
    case held(Int64, answer: PushAnswer?, error: String, until: Millis)
}

/// What became of a failed push.
public enum PushFailureOutcome: Sendable, Hashable {
    /// Pending again, due at the retry time; `attempts` failed so far.
    case retryScheduled(attempts: Int)
    /// The last attempt failed: moved to the dead letters under this id.
    case deadLettered(id: Int64)
    /// Waiting while sending is halted; its attempts unchanged.
    case held
    /// No such push in the outbox (already sent or moved).
    case notFound
}
