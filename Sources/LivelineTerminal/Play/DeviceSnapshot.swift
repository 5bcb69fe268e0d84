import Liveline
import LivelineAPNs

/// What a device shows of an activity, when one can be asked (the embedded mock can; APNs
/// cannot). The live view prefers it to what was sent: a 200 does not mean the phone rendered it.
public struct DeviceSnapshot: Sendable {
    /// `pending`, `active`, `stale`, `ended` or `dismissed`.
    public var lifecycle: String
    /// The content-state shown, as the device decoded it (dates as reference-date numbers).
    public var contentState: StateObject?
    public var relevance: Double?
    /// Priority-10 pushes left in the device's budget.
    public var budgetRemaining: Int?
    /// Why the last push did not render, if it did not.
    public var problems: [String]
    /// The last alert's title or body.
    public var lastAlert: String?
    /// What the device did with the last push: `rendered`, `dropped-old`, `throttled`, …
    public var lastOutcome: String?

    public init(
        lifecycle: String, contentState: StateObject?, relevance: Double?, budgetRemaining: Int?, problems: [String],
        lastAlert: String?, lastOutcome: String?
    ) {
        self.lifecycle = lifecycle
        self.contentState = contentState
        self.relevance = relevance
        self.budgetRemaining = budgetRemaining
        self.problems = problems
        self.lastAlert = lastAlert
        self.lastOutcome = lastOutcome
    }
}
