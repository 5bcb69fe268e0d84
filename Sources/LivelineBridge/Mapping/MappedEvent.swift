import Liveline

/// A verified webhook read through its source's rules: which activity, where it falls in the
/// activity's order, and what to do to the activity's engine.
public struct MappedEvent: Sendable, Hashable {
    /// The sender's event id, or `sha256:<hex of the body>` when the sender has none, its id is
    /// blank and the source falls back to the hash, or its id is a header its scheme does not
    /// sign (GitHub, Shopify); the inbox deduplicates on it.
    public var eventID: String
    /// Whether ``eventID`` is the body's hash rather than the sender's id.
    public var eventIDIsBodyHash: Bool
    /// The event's type, which picked its rule.
    public var eventType: String
    /// The key of the activity it drives.
    public var activityKey: String
    /// nil when the source has no order key: arrival order.
    public var orderKey: OrderKey?
    /// What to do, in order. Empty for an ignored event type (acknowledged and recorded).
    public var actions: [MappedAction]
    /// Whether no rule names the event type and the source ignores such events.
    public var isIgnored: Bool

    /// A mapped event with the parts given.
    public init(
        eventID: String, eventIDIsBodyHash: Bool, eventType: String, activityKey: String, orderKey: OrderKey?,
        actions: [MappedAction], isIgnored: Bool = false
    ) {
        self.eventID = eventID
        self.eventIDIsBodyHash = eventIDIsBodyHash
        self.eventType = eventType
        self.activityKey = activityKey
        self.orderKey = orderKey
        self.actions = actions
        self.isIgnored = isIgnored
    }
}

/// One thing a mapped event does to its activity; `EventApplication` makes each one call on
/// the activity's `ActivityEngine`.
public enum MappedAction: Sendable, Hashable {
    /// Push-to-start the activity: its start beat, triggered.
    case start
    /// `trigger(beat, input:)`: a beat of the scenario by its id.
    case trigger(beat: String, input: StateValue?)
    /// `apply(change)`: fields, relevance, alert, priority; may end the activity too.
    case change(ExternalChange)
    /// `apply(.endNow(…))`; nil takes the policy's dismissal.
    case end(Dismissal?)
}
