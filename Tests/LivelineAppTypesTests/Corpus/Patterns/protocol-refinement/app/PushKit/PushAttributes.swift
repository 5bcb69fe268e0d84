import ActivityKit

/// A push SDK's own refinement: apps conform to it, not to ActivityAttributes.
public protocol PushAttributes: ActivityAttributes where ContentState: PushContentState {
    var campaign: String { get }
}

public protocol PushContentState: Codable, Hashable {}
