import Foundation
import Liveline

/// One device following an activity key. An iPhone: its own Live Activity (an update token), or a
/// push-to-start token to start one, and whether it listens to the key's broadcast channel
/// (then it is sent no per-token updates); APNs tokens are hex, lower-case. An Android phone: its
/// FCM token (``fcmToken``), sent every message of the story's Live Update, the start and the
/// end included. A device is one or the other.
public struct Follower: Sendable, Hashable {
    /// The app's own name for the device (an install id); unique within a key.
    public var device: String
    /// The device's running activity's update token; nil when it has none yet.
    public var updateToken: String?
    /// The device's push-to-start token, to start the activity with the story.
    public var startToken: String?
    /// Whether the device listens to the key's broadcast channel instead of per-token updates.
    public var onChannel: Bool
    /// The APNs environment of its tokens; nil: the configuration's `apns.environment`.
    public var environment: APNsEnvironment?
    /// An Android phone's FCM registration token, or `fid:` and its Firebase installation ID.
    public var fcmToken: String?

    /// A follower `device` with the tokens given.
    public init(
        device: String, updateToken: String? = nil, startToken: String? = nil, onChannel: Bool = false,
        environment: APNsEnvironment? = nil, fcmToken: String? = nil
    ) {
        self.device = device
        self.updateToken = updateToken
        self.startToken = startToken
        self.onChannel = onChannel
        self.environment = environment
        self.fcmToken = fcmToken
    }

    /// The phone's platform: Android with an FCM token, iOS otherwise.
    public var platform: Platform { fcmToken == nil ? .ios : .android }
}

/// How a key's followers stand, for `GET /v1/activities/{key}` and the metrics.
public struct FollowerCounts: Sendable, Hashable {
    /// Followers with an update token, sent every push.
    public var updating = 0
    /// Followers with only a push-to-start token: started with the story.
    public var awaitingStart = 0
    /// Followers subscribed to the key's channel (reached by its broadcast).
    public var onChannel = 0
    /// Followers waiting for a retry after a failed push (429, 5xx).
    public var retrying = 0
    /// Followers that joined after the story began and wait for their catch-up push.
    public var catchingUp = 0
    /// Followers whose start may or may not have arrived (its sender stopped before APNs'
    /// answer was recorded): sent nothing until their app reports an update token.
    public var inDoubt = 0
    /// Android followers (an FCM token; counted in ``updating`` too); the rest are iPhones.
    public var android = 0
    /// Followers that named their APNs environment, by environment; the others (``total``
    /// less these) follow the configuration's `apns.environment` (``byEnvironment(default:)``).
    public var named: [APNsEnvironment: Int] = [:]

    /// Counts of zero.
    public init() {}

    /// Every follower of the key: updating, awaiting a start, or on the channel.
    public var total: Int { updating + awaitingStart + onChannel }

    /// Every follower by platform.
    public var byPlatform: [Platform: Int] { [.ios: max(0, total - android), .android: android] }

    /// Every iPhone follower by the environment its tokens go to, those that named none counted
    /// in `defaultEnvironment` (an Android phone's FCM token has no APNs environment).
    public func byEnvironment(default defaultEnvironment: APNsEnvironment) -> [APNsEnvironment: Int] {
        var counts = named
        counts[defaultEnvironment, default: 0] += max(0, total - android - named.values.reduce(0, +))
        return counts
    }
}

/// What registering one follower did.
public enum FollowerChange: Sendable, Hashable {
    /// The follower is new.
    case created
    /// The follower existed and its tokens or channel changed.
    case updated
    /// The follower existed exactly so.
    case unchanged
}
