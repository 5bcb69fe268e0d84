import Foundation

/// What `PUT /v1/activities/{key}` sets: where pushes go and which story the activity follows.
/// The engine state is the dispatcher's and is never touched by a registration.
public struct ActivityRegistration: Sendable, Hashable {
    public var key: String
    public var targets: ActivityTargets
    /// The source whose scenario the activity follows.
    public var scenario: String
    public var frequentUpdates: Bool

    public init(key: String, targets: ActivityTargets, scenario: String, frequentUpdates: Bool = false) {
        self.key = key
        self.targets = targets
        self.scenario = scenario
        self.frequentUpdates = frequentUpdates
    }
}

/// Where an activity's pushes can go.
public struct ActivityTargets: Sendable, Hashable {
    public var updateToken: String?
    public var pushToStartToken: String?
    public var channelID: String?

    public init(updateToken: String? = nil, pushToStartToken: String? = nil, channelID: String? = nil) {
        self.updateToken = updateToken
        self.pushToStartToken = pushToStartToken
        self.channelID = channelID
    }

    /// Whether a push can go anywhere at all.
    public var isEmpty: Bool { updateToken == nil && pushToStartToken == nil && channelID == nil }
}
