/// What the device did with one push to one activity.
public enum DeviceOutcome: String, Sendable, Hashable, Codable {
    /// The content was decoded and shown.
    case rendered
    /// The push's `timestamp` was not newer than the content already shown; dropped.
    case droppedOld = "dropped-old"
    /// A priority-10 push found the activity's budget empty; not shown.
    case throttled
    /// The push reached the device but would fail there (decode error, missing `alert` on a
    /// start, stale date already past, …); the reasons say why.
    case wouldNotRender = "would-not-render"
    /// The activity had already ended; iOS ignores further pushes.
    case ignoredAfterEnd = "ignored-after-end"
}

/// What happened to one activity because of one push.
public struct DeviceDelivery: Sendable, Hashable, Codable {
    /// The activity's id in the mock (see ``ActivitySnapshot/id``).
    public var activityID: String
    /// The activity's update token, when it has one.
    public var updateToken: String?
    public var outcome: DeviceOutcome
    /// Why the outcome is not `rendered`; empty when it is.
    public var reasons: [String]
    /// The activity's lifecycle after the push.
    public var lifecycle: ActivityLifecycle
    /// Whether this push started the activity.
    public var started: Bool
    /// For a start on a push-to-start token while an activity an earlier start on it made is
    /// still shown, with content no older than the start's: that activity's id. The phone now shows two Live Activities for one story,
    /// a sender's fault (counted in ``MockAPNsStats/duplicateStarts``).
    public var duplicateOf: String? = nil
}
