import Foundation
import Liveline

/// A registered activity: where its pushes go, the story it follows, and what the dispatcher
/// needs to resume it after a restart.
public struct RegisteredActivity: Sendable, Hashable {
    /// The registry's identity of the activity.
    public var activityKey: String
    public var updateToken: String?
    public var pushToStartToken: String?
    public var channelID: String?
    /// The APNs environment of its tokens; nil: the configuration's `apns.environment`.
    public var environment: APNsEnvironment?
    /// The name of the source whose story (its scenario's activity) the activity follows.
    public var source: String
    public var frequentUpdates: Bool
    public var lifecycle: ActivityEngine.Lifecycle
    /// Opaque bytes the dispatcher serializes its engine state into; the store never reads them.
    public var engineState: [UInt8]?
    /// When the engine next wants to run for this activity (a heartbeat, a scheduled beat).
    public var nextDeadline: Millis?
    public var lastPush: PushAnswer?
    public var lastError: String?
    public var updatedAt: Millis

    public init(
        activityKey: String, updateToken: String? = nil, pushToStartToken: String? = nil, channelID: String? = nil,
        environment: APNsEnvironment? = nil, source: String, frequentUpdates: Bool = false,
        lifecycle: ActivityEngine.Lifecycle = .pending,
        engineState: [UInt8]? = nil, nextDeadline: Millis? = nil, lastPush: PushAnswer? = nil,
        lastError: String? = nil, updatedAt: Millis
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
    }
}
