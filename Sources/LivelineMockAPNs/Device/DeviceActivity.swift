import Liveline

/// The device-side state of one Live Activity.
///
/// A value type owned by ``MockAPNsState``; mutated only under its lock.
struct DeviceActivity {
    let id: String
    var updateToken: String?
    /// The push-to-start token that started it, if it was started by push.
    var pushToStartToken: String?
    var attributesType: String?
    var attributes: JSONValue?
    var channels: [String] = []
    let createdAt: Millis
    /// When content was first rendered: the start of its 8-hour life.
    var startedAt: Millis?
    /// The content shown, kept as compact text (``CompactJSON``): read only for inspection.
    var contentState: JSONValue? {
        get { storedContentState?.value }
        set { storedContentState = newValue.map(CompactJSON.init) }
    }
    private var storedContentState: CompactJSON?
    /// The shape content-states must decode into, once known.
    var shape: ContentShape?
    /// Whether `shape` came from a scenario (it is then not refined by pushes).
    var shapeIsDeclared = false
    var relevanceScore: Double?
    /// UNIX milliseconds.
    var staleDate: Millis?
    /// UNIX milliseconds.
    var dismissalDate: Millis?
    var endedAt: Millis?
    /// The newest rendered `timestamp`, UNIX seconds.
    var lastTimestamp: Double?
    var budget: BudgetBucket
    var counters = DeviceCounts()
    var lastReasons: [String] = []
    var lastAlert: JSONValue? {
        get { storedLastAlert?.value }
        set { storedLastAlert = newValue.map(CompactJSON.init) }
    }
    private var storedLastAlert: CompactJSON?
    var lastPushAt: Millis?

    /// The system ends an activity 8 hours after it started.
    static let maxActiveDuration: Millis = 8 * 3_600_000
    /// An ended activity stays on the Lock Screen at most 4 hours.
    static let maxEndedDuration: Millis = 4 * 3_600_000

    init(id: String, createdAt: Millis, budget: BudgetBucket) {
        self.id = id
        self.createdAt = createdAt
        self.budget = budget
    }

    /// When the activity ended or will be ended by the system, as of `now`; nil while running.
    func endInstant(at now: Millis) -> Millis? {
        if let endedAt { return endedAt }
        guard let startedAt else { return nil }
        let systemEnd = startedAt + Self.maxActiveDuration
        return now >= systemEnd ? systemEnd : nil
    }

    /// The lifecycle at `now`, computed from the dates the pushes set.
    func lifecycle(at now: Millis) -> ActivityLifecycle {
        guard startedAt != nil else { return endedAt == nil ? .pending : .dismissed }
        if let ended = endInstant(at: now) {
            let latest = ended + Self.maxEndedDuration
            let dismissAt = min(dismissalDate ?? latest, latest)
            return now >= dismissAt ? .dismissed : .ended
        }
        if let staleDate, now >= staleDate { return .stale }
        return .active
    }
}
