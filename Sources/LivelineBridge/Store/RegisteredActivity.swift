import Foundation
import Liveline

/// A registered activity: where its pushes go, the story it follows, and what the dispatcher
/// needs to resume it after a restart.
public struct RegisteredActivity: Sendable, Hashable {
    /// The registry's identity of the activity.
    public var activityKey: String
    /// The running activity's update token; nil until the app registers one.
    public var updateToken: String?
    /// The app's push-to-start token, for an activity the bridge starts.
    public var pushToStartToken: String?
    /// The broadcast channel the activity listens to, instead of an update token.
    public var channelID: String?
    /// The APNs environment of its tokens; nil: the configuration's `apns.environment`.
    public var environment: APNsEnvironment?
    /// An Android phone's FCM token (or `fid:` and its Firebase installation ID), instead of
    /// the APNs tokens and channel.
    public var fcmToken: String?
    /// The name of the source whose story (its scenario's activity) the activity follows.
    public var source: String
    /// Whether the app declares `NSSupportsLiveActivitiesFrequentUpdates` (a larger budget).
    public var frequentUpdates: Bool
    /// Whether the activity is pending, active or ended, as of the last dispatch step.
    public var lifecycle: ActivityEngine.Lifecycle
    /// Opaque bytes the dispatcher serializes its engine state into; the store never reads them.
    public var engineState: [UInt8]?
    /// When the engine next wants to run for this activity (a heartbeat, a scheduled beat).
    public var nextDeadline: Millis?
    /// The last push sent and APNs's answer; nil before the first.
    public var lastPush: PushAnswer?
    /// The last error met for the activity (a rejected push, an event that does not fit its story).
    public var lastError: String?
    /// When the registration or the dispatcher last changed it.
    public var updatedAt: Millis
    /// The key's own `renew`, over its scenario's; nil: the scenario's.
    public var renewal: RenewalChoice?

    /// An activity with the parts given.
    public init(
        activityKey: String, updateToken: String? = nil, pushToStartToken: String? = nil, channelID: String? = nil,
        environment: APNsEnvironment? = nil, source: String, frequentUpdates: Bool = false,
        lifecycle: ActivityEngine.Lifecycle = .pending,
        engineState: [UInt8]? = nil, nextDeadline: Millis? = nil, lastPush: PushAnswer? = nil,
        lastError: String? = nil, updatedAt: Millis, renewal: RenewalChoice? = nil, fcmToken: String? = nil
    ) {
        self.activityKey = activityKey
        self.updateToken = updateToken
        self.pushToStartToken = pushToStartToken
        self.channelID = channelID
        self.environment = environment
        self.source = source
        self.frequentUpdates = frequentUpdates
        self.lifecycle = lifecycle
        self.engineState = engineState
        self.nextDeadline = nextDeadline
        self.lastPush = lastPush
        self.lastError = lastError
        self.updatedAt = updatedAt
        self.renewal = renewal
        self.fcmToken = fcmToken
    }

    /// Where its pushes go now.
    public var targets: ActivityTargets {
        ActivityTargets(
            updateToken: updateToken, pushToStartToken: pushToStartToken, channelID: channelID,
            environment: environment, fcmToken: fcmToken)
    }

    /// The phone's platform: Android with an FCM token, iOS otherwise.
    public var platform: Platform { fcmToken == nil ? .ios : .android }
}
