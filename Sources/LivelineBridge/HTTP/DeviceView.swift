import Liveline

/// What the device behind an activity shows, for the registry's answers: when the bridge
/// pushes to its embedded mock APNs, the CLI passes one that reads the mock's device (its
/// content-state, lifecycle and the outcome of the last push); nil when it cannot tell.
public typealias DeviceView = @Sendable (RegisteredActivity) -> StateObject?
