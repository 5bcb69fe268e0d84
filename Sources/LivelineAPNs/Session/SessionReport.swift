import LivelineCore

/// What a ``LiveSession`` did, counted from its events, and how the run ended.
public struct SessionReport: Sendable {
    /// An activity APNs stopped (410, a bad token), with why.
    public struct StoppedActivity: Sendable, Hashable {
        /// The activity's place in the run.
        public var activity: Int
        /// The activity's name in the scenario.
        public var name: String
        /// APNs's reason, with the status.
        public var reason: String

        /// A record of `activity` stopped for `reason`.
        public init(activity: Int, name: String, reason: String) {
            self.activity = activity
            self.name = name
            self.reason = reason
        }
    }

    /// Pushes the engine decided.
    public var decided = 0
    /// Pushes APNs accepted (200).
    public var delivered = 0
    /// Retries after retryable failures.
    public var retries = 0
    /// Pushes replaced by a newer one before they went (newest state wins).
    public var superseded = 0
    /// Pushes APNs refused for good (4xx).
    public var rejected = 0
    /// Pushes whose retries ran out.
    public var gaveUp = 0
    /// Pushes the engine refused to send (over the payload limit).
    public var refused = 0
    /// The activities APNs stopped, in the order it did.
    public var stoppedActivities: [StoppedActivity] = []
    /// The setup problem that stopped the run, with how to fix it.
    public var configurationError: String?
    /// Pushes still pending when the drain deadline passed: they may not have reached APNs.
    public var abandoned: [Push] = []
    /// A renewal's pushes not sent because the activity cannot renew (no push-to-start token):
    /// it carries on until the system ends it. No failure.
    public var notRenewed = 0
    /// Why the session stopped early, or nil when its story ran to the end.
    public var stopReason: StopReason?

    /// A report with every count at zero.
    public init() {}

    /// Pushes that did not get where they were going.
    public var failed: Int { rejected + gaveUp + refused + abandoned.count }

    /// The run's outcome, for an exit status.
    public var status: PlayStatus {
        if configurationError != nil { return .setupRefused }
        if stopReason == .interrupted { return .interrupted }
        if !stoppedActivities.isEmpty || failed > 0 { return .pushesFailed }
        return .success
    }

    /// `108 pushes, 108 delivered, 0 retries, 0 failed`, and what went wrong.
    public var summary: String {
        var text =
            "\(decided) \(decided == 1 ? "push" : "pushes"), \(delivered) delivered, \(retries) \(retries == 1 ? "retry" : "retries"), \(failed) failed"
        var failures: [String] = []
        if rejected > 0 { failures.append("\(rejected) rejected") }
        if gaveUp > 0 { failures.append("\(gaveUp) gave up after retries") }
        if refused > 0 { failures.append("\(refused) over the size limit") }
        if !abandoned.isEmpty { failures.append("\(abandoned.count) still pending at the drain deadline") }
        if !failures.isEmpty { text += " (" + failures.joined(separator: ", ") + ")" }
        if superseded > 0 { text += ", \(superseded) replaced by newer state" }
        if notRenewed > 0 {
            text +=
                ", \(notRenewed) renewal \(notRenewed == 1 ? "push" : "pushes") not sent (no push-to-start token: the activity runs until the system ends it)"
        }
        let stopped = stoppedActivities.count
        if stopped > 0 { text += ", \(stopped) \(stopped == 1 ? "activity" : "activities") stopped by APNs" }
        return text
    }
}

/// How a play ended, as the exit status the README documents.
public enum PlayStatus: Int32, Sendable, Hashable {
    /// The story played to its end and every push was delivered.
    case success = 0
    /// The scenario has errors, or a target or credential is missing (found before playing).
    case scenarioError = 1
    /// APNs refused the setup (topic, key, environment, an untrusted certificate).
    case setupRefused = 2
    /// APNs stopped some activities (410), or pushes failed.
    case pushesFailed = 3
    /// APNs could not be reached before the first push: every connection attempt failed
    /// (``APNsClient/connect(patience:)``).
    case unreachable = 4
    /// A usage error.
    case usage = 64
    /// Ctrl-C.
    case interrupted = 130
}
