/// FCM's `android.priority`.
public enum FCMPriority: String, Sendable, Hashable {
    /// Delivered when the phone's battery rules allow (Doze holds it for a maintenance window).
    case normal = "NORMAL"
    /// Delivered at once, waking the phone: only for what the user sees, or FCM lowers the app's
    /// messages to normal.
    case high = "HIGH"
}

/// One FCM message for an Android Live Update: what the Android platform made of one engine
/// decision (or of several, merged while the app's update rate held them).
///
/// The target (a registration token or a Firebase installation ID) is not part of it: the
/// sender adds it, as for APNs pushes.
public struct AndroidMessage: Sendable, Hashable {
    /// The activity's place in the run.
    public var activity: Int
    /// The activity's name: the notification's tag on the phone.
    public var activityName: String
    /// The message's number within its activity, from 0.
    public var sequence: Int
    /// When it is sent, in UNIX milliseconds: the decision's time, later when paced.
    public var time: Millis
    /// When the engine decided it.
    public var decidedAt: Millis
    /// Whether it starts, updates or ends the Live Update.
    public var event: PushEvent
    /// `android.priority`: high only when the user sees something change.
    public var priority: FCMPriority
    /// `android.ttl`, whole seconds: how long FCM keeps it for a phone that is offline.
    public var ttlSeconds: Int64
    /// `android.collapse_key`: a newer message with the same key replaces this one while the
    /// phone is offline. Nil when FCM's collapsible allowance is spent.
    public var collapseKey: String?
    /// The data message (``LiveUpdateKeys``).
    public var data: FCMData
    /// What the notification shows after it.
    public var content: LiveUpdateContent
    /// Why the message is what it is, for `plan` and the session's report.
    public var reason: AndroidReason

    /// A message with every field given; ``AndroidPlatform`` is what makes them.
    public init(
        activity: Int, activityName: String, sequence: Int, time: Millis, decidedAt: Millis, event: PushEvent,
        priority: FCMPriority, ttlSeconds: Int64, collapseKey: String?, data: FCMData, content: LiveUpdateContent,
        reason: AndroidReason
    ) {
        self.activity = activity
        self.activityName = activityName
        self.sequence = sequence
        self.time = time
        self.decidedAt = decidedAt
        self.event = event
        self.priority = priority
        self.ttlSeconds = ttlSeconds
        self.collapseKey = collapseKey
        self.data = data
        self.content = content
        self.reason = reason
    }

    /// `"3600s"`: the ttl as FCM's HTTP v1 API writes a duration.
    public var ttl: String { "\(ttlSeconds)s" }
}
