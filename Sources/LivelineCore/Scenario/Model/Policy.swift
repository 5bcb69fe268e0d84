/// How beats become pushes: the rules the engine applies to one activity.
///
/// A file sets defaults, an activity overrides them, and a beat may override `stale-after`
/// from that beat on. Every duration is in milliseconds.
public struct Policy: Sendable, Hashable {
    /// What the engine does with a high-priority beat when the budget is empty.
    public enum OverBudget: String, Sendable, Hashable {
        /// Send it now at priority 5.
        case downgrade
        /// Hold it until a token is back (or until the activity would go stale).
        case `defer`
    }

    /// The priority of beats that don't say.
    public var priority: Priority = .low
    /// Priority-10 pushes per hour. Defaults to 12, or 48 with frequent updates.
    public var budget: Int = 12
    /// Whether the app declares `NSSupportsLiveActivitiesFrequentUpdates`.
    public var frequentUpdates = false
    /// What happens to a high-priority beat when the budget is spent.
    public var overBudget: OverBudget = .downgrade
    /// Low-priority beats closer than this to the last push merge into one push.
    public var minInterval: Millis = 15_000
    /// Each push's `stale-date` is this far ahead; nil sends no stale date.
    public var staleAfter: Millis? = 600_000
    /// A heartbeat goes out this long before the stale date when nothing else has.
    public var heartbeat: Millis = 60_000
    /// The `dismissal-date` of the end.
    public var dismissal: Dismissal = .default
    /// `apns-expiration` is this long after each push; 0 sends `apns-expiration: 0`.
    public var expiration: Millis = 3_600_000
    /// The engine ends an activity that reaches this age. ActivityKit allows 8 hours.
    public var maxDuration: Millis = Policy.activityKitMaxDuration
    /// Whether and when the story renews its activity before the system's limit (`renew:`);
    /// nil: never, and the engine ends the activity at ``maxDuration``.
    public var renewal: Renewal?

    /// How long the whole story may run: ``Renewal/until`` when it renews, else ``maxDuration``.
    public var storyLimit: Millis { renewal?.until ?? maxDuration }

    /// ActivityKit ends an activity after 8 hours.
    public static let activityKitMaxDuration: Millis = 8 * 3_600_000

    /// The defaults, as a file with no `policy:` gets them.
    public init() {}
}

/// A push's priority: `apns-priority` 10 (shown now, charged to the budget) or 5.
public enum Priority: String, Sendable, Hashable {
    /// `apns-priority: 10`: shown at once, charged to the budget.
    case high
    /// `apns-priority: 5`: delivered when the device sees fit, free.
    case low

    /// The `apns-priority` header value.
    public var apnsValue: Int { self == .high ? 10 : 5 }
}

/// When an ended activity leaves the Lock Screen.
public enum Dismissal: Sendable, Hashable, CustomStringConvertible {
    /// No `dismissal-date`: iOS keeps it up to 4 hours.
    case `default`
    /// A `dismissal-date` in the past: it goes at once.
    case immediate
    /// A `dismissal-date` this long after the end.
    case after(Millis)

    public var description: String {
        switch self {
        case .default: "default"
        case .immediate: "immediate"
        case .after(let millis): "after \(DurationText.format(millis))"
        }
    }
}
