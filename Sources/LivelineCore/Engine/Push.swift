/// An ActivityKit event: `start`, `update` or `end`.
public enum PushEvent: String, Sendable, Hashable {
    /// The push starts an activity on a device (push-to-start).
    case start
    /// The push changes a running activity's content-state, alert or relevance.
    case update
    /// The push ends the activity, with a dismissal date.
    case end
}

/// One push the engine decided to send: when, at what priority, the exact payload bytes, and why.
///
/// The decision itself is platform-neutral (when, the event, the priority hint, the timestamp,
/// the stale and dismissal dates, the alert, the reason; the state is the engine's, read through
/// ``PushSink/receive(_:from:)``). The engine also writes APNs's rendering of it, `payload`,
/// in the same pass, because iOS is the hot path; another platform renders its own message from
/// the neutral fields (``AndroidPlatform``). The target (an update token, a push-to-start token
/// or a channel) is not the engine's business: sinks add it.
public struct Push: Sendable {
    /// The activity's place in the run (see ``ScenarioRun/activities``).
    public var activity: Int
    /// The push's number within its activity, from 0.
    public var sequence: Int
    /// When it is due, in UNIX milliseconds on the clock that drives the engine.
    public var time: Millis
    /// Whether it starts, updates or ends the activity (the payload's `aps.event`).
    public var event: PushEvent
    /// The `apns-priority`: 10 is delivered at once and charged to the budget, 5 when the device sees fit.
    public var priority: Priority
    /// The `aps.timestamp`, UNIX seconds. Strictly increasing per activity.
    public var timestamp: Int64
    /// The `apns-expiration` header: UNIX seconds, or 0 for "now or never".
    public var expiration: Int64
    /// The exact JSON body: `{"aps":{…}}`.
    public var payload: [UInt8]
    /// Why the engine sent it, for plans and logs.
    public var reason: PushReason
    /// The `stale-date`, UNIX seconds, or nil when the policy sends none.
    public var staleDate: Int64?
    /// On an end, the `dismissal-date`, UNIX seconds; nil leaves it to the system (iOS keeps it up to 4 hours).
    public var dismissalDate: Int64?
    /// The alert the push carries, evaluated.
    public var alert: Alert<String>? {
        get { alertBox?.alert }
        set { alertBox = newValue.map(AlertBox.init) }
    }
    /// The alert behind one reference: a push is copied into the delivery's table and into each
    /// event about it, and an alert kept inline made every copy larger and field by field (its
    /// texts' cases read and their strings retained one by one), alert or none.
    private var alertBox: AlertBox?
    /// Which of the story's Live Activities on a device the push is for: 0 the first, `n` the
    /// one the `n`-th renewal started (``Renewal``). A renewal's start is for the successor and
    /// its end for the predecessor; a sink sends pushes of a newer generation to the update token
    /// the successor reports.
    public var generation: Int

    /// A push with every field given; the engine makes these, tests and tools build their own.
    public init(
        activity: Int, sequence: Int, time: Millis, event: PushEvent, priority: Priority,
        timestamp: Int64, expiration: Int64, payload: [UInt8], reason: PushReason,
        staleDate: Int64? = nil, dismissalDate: Int64? = nil, alert: Alert<String>? = nil, generation: Int = 0
    ) {
        self.activity = activity
        self.sequence = sequence
        self.time = time
        self.event = event
        self.priority = priority
        self.timestamp = timestamp
        self.expiration = expiration
        self.payload = payload
        self.reason = reason
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        alertBox = alert.map(AlertBox.init)
        self.generation = generation
    }
}

/// A push's alert, kept by reference (``Push/alert``); never changed once made.
private final class AlertBox: Sendable {
    let alert: Alert<String>

    init(_ alert: Alert<String>) { self.alert = alert }
}

/// Why a push exists, so people can see why the engine did what it did.
///
/// It is a few plain fields, not text, so the hot path allocates nothing for it; its
/// `description` reads like `beat goal-home · budget 11/12` or `heartbeat: stale in 60s`.
public struct PushReason: Sendable, Hashable, CustomStringConvertible {
    /// What caused a push.
    public enum Kind: Sendable, Hashable {
        /// One or more beats of the story.
        case beat
        /// A change from outside the story (``ExternalChange``): a webhook, an operator, a feed.
        case event
        /// Nothing new, but the activity would go stale: the same state with a new stale date.
        case heartbeat
        /// The activity reached max-duration (ActivityKit's 8 hours) without an end.
        case reachedMaxDuration
        /// The run is stopping (Ctrl-C in `liveline play`): the activity ends with what it shows.
        case stopped
        /// A renewal's first push: the successor starts with the current state (`occurrence` is
        /// the renewal's number, from 1).
        case renewalStart
        /// A renewal's second push: the predecessor ends with the same state, dismissed at once.
        case renewalEnd
        /// A renewing story reached its `until` without an end: the engine ends it.
        case reachedStoryLimit
    }

    /// What happened to the budget for this push.
    public enum Budget: Sendable, Hashable {
        /// A priority-5 push: the budget is not involved.
        case notCharged
        /// Priority 10: a token was spent, `left` of `of` remain.
        case spent(left: Int, of: Int)
        /// A high beat went out at priority 5: the bucket was empty.
        case downgraded(of: Int)
        /// A high beat waited this long for a token.
        case deferred(Millis, left: Int, of: Int)
        /// A high beat waited, then went out at priority 5 because it would otherwise go stale.
        case deferredThenDowngraded(Millis, of: Int)
    }

    /// What caused the push.
    public var kind: Kind
    /// The label of the last beat merged into the push (its id, or its line).
    public var beat: String
    /// The occurrence number of a repeating beat, from 1; 0 for one-off beats. For a renewal's
    /// pushes, the renewal's number, from 1.
    public var occurrence: Int
    /// How many beats the push carries (more than 1 when beats were coalesced).
    public var merged: Int
    /// How the priority-10 budget was charged, or why it was not.
    public var budget: Budget
    /// When a rule delayed the push (`min-interval`, one push a second), how long its first beat waited.
    public var held: Millis
    /// For heartbeats: how long until the activity would have gone stale.
    public var staleIn: Millis

    /// A reason of `kind`; the other fields default to "not applicable".
    public init(
        kind: Kind, beat: String = "", occurrence: Int = 0, merged: Int = 0, budget: Budget = .notCharged,
        held: Millis = 0, staleIn: Millis = 0
    ) {
        self.kind = kind
        self.beat = beat
        self.occurrence = occurrence
        self.merged = merged
        self.budget = budget
        self.held = held
        self.staleIn = staleIn
    }

    /// The beat's label with its occurrence: `first-half-minute #23`.
    public var beatLabel: String { occurrence > 0 ? "\(beat) #\(occurrence)" : beat }

    public var description: String {
        var parts: [String] = []
        switch kind {
        case .beat:
            parts.append(merged > 1 ? "coalesced \(merged) beats, last \(beatLabel)" : "beat \(beatLabel)")
        case .event:
            parts.append(merged > 1 ? "coalesced \(merged) beats, last event \(beat)" : "event \(beat)")
        case .heartbeat:
            parts.append("heartbeat: stale in \(DurationText.format(staleIn))")
        case .reachedMaxDuration:
            parts.append("ended: reached max-duration")
        case .stopped:
            parts.append("ended: run stopped")
        case .renewalStart:
            parts.append("renewal #\(occurrence): successor starts")
        case .renewalEnd:
            parts.append("renewal #\(occurrence): predecessor ends")
        case .reachedStoryLimit:
            parts.append("ended: reached renew until")
        }
        switch budget {
        case .notCharged: break
        case .spent(let left, let of): parts.append("budget \(left)/\(of)")
        case .downgraded(let of): parts.append("downgraded: budget 0/\(of)")
        case .deferred(let wait, let left, let of):
            parts.append("deferred \(DurationText.format(wait)): budget \(left)/\(of)")
        case .deferredThenDowngraded(let wait, let of):
            parts.append("deferred \(DurationText.format(wait)), then downgraded: budget 0/\(of), would go stale")
        }
        if held >= 1000 { parts.append("held \(DurationText.format(held / 1000 * 1000))") }
        return parts.joined(separator: " · ")
    }
}

/// A payload the engine refused to send.
public enum PushProblem: Sendable, Hashable, CustomStringConvertible {
    /// Over APNs's limit (4096 bytes to a device, 5120 to a channel).
    case tooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit): "payload is \(bytes) bytes, over APNs's limit of \(limit)"
        }
    }
}

/// Where the engine's pushes go: a printer, a counter, the APNs client, the dry run.
///
/// The engine calls a sink synchronously, on the thread that advances it. `from` is the
/// activity right after the push, for sinks that show what the device would show; reading it
/// costs nothing, keeping a copy of its state costs a copy on the engine's next change.
public protocol PushSink {
    /// Receives a push the engine has decided to send, in time order.
    mutating func receive(_ push: Push, from activity: ActivityEngine)
    /// A push the engine did not send because something was wrong with it.
    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine)
    /// Everything due at one instant has been received: a sink that holds pushes back to send
    /// a burst together sends them now. The default does nothing.
    mutating func batchEnded()
}

extension PushSink {
    public mutating func batchEnded() {}
}
