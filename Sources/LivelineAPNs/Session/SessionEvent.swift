import LivelineCore

/// What happened in a ``LiveSession``, in the order it happened per activity.
///
/// The terminal view of `liveline play`, logs and tests' probes all read the same events: a push
/// the engine decided (with why), its way to APNs (sent, answered, retried, replaced, refused,
/// given up), what external events did, and the report at the end.
public enum SessionEvent: Sendable {
    /// The engine decided a push; `engine` is the activity right after it. The push goes to
    /// delivery next (or waits there for a target).
    case decided(Push, engine: ActivityEngine)
    /// The engine refused a push it built (over the payload limit); it was never sent.
    case refused(Push, problem: PushProblem, engine: ActivityEngine)
    /// The push's way to APNs: sent, delivered, retrying, superseded, rejected, stopped, gave up,
    /// abandoned, or a configuration error that stops the run.
    case delivery(DeliveryEvent)
    /// An external trigger of beat `beat` reached the activity.
    case triggered(activity: Int, beat: String, outcome: ActivityEngine.TriggerOutcome)
    /// An external change reached the activity.
    case changed(activity: Int, label: String, outcome: ActivityEngine.ChangeOutcome)
    /// The activity's target became known; pushes that waited for it go now.
    case targetSet(activity: Int, target: PushTarget)
    /// The session woke and played what was due by `now`. Sent only when the session's
    /// configuration asks (``LiveSession/Configuration/reportsWakes``), for live views.
    case woke(activities: [ActivityEngine], now: Millis)
    /// The session is stopping: the activities are being ended and in-flight pushes drained.
    case stopping(StopReason)
    /// The session is over; nothing follows.
    case finished(SessionReport)
}

/// Why a session stopped before its story ran out.
public enum StopReason: Sendable, Hashable, CustomStringConvertible {
    /// The user asked (Ctrl-C).
    case interrupted
    /// The program asked (a bridge shutting down, a test).
    case requested
    /// APNs refused the setup; nothing more can be sent.
    case configurationError(String)

    public var description: String {
        switch self {
        case .interrupted: "interrupted"
        case .requested: "stop requested"
        case .configurationError(let advice): "APNs refused the setup: \(advice)"
        }
    }
}
