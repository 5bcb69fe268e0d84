/// Why an Android message is what it is: the engine's decision, and the Android rules applied
/// to it. Reads like `beat goal-home-1 · HIGH: alert, chip, text · ttl 5m (stale date) ·
/// collapsible 19/20`.
public struct AndroidReason: Sendable, Hashable, CustomStringConvertible {
    /// Where the time to live came from.
    public enum TTLSource: Sendable, Hashable {
        /// Until the stale date: after it the content is out of date.
        case staleDate
        /// The policy's `expiration` (no stale date); zero is "now or never".
        case expiration
        /// An end waits as long as FCM allows, to reach a phone that still shows the activity.
        case end
    }

    /// What happened to FCM's collapsible allowance.
    public enum Collapse: Sendable, Hashable {
        /// The message carries the collapse key; `left` of `of` remain.
        case collapsible(left: Int, of: Int)
        /// The allowance is spent, so FCM would delay a collapsible message: it goes without a key.
        case allowanceSpent(of: Int)
    }

    /// The engine's decision (its APNs budget is not shown: it is iOS's rule).
    public var decision: PushReason
    /// What Android shows differently (``LiveUpdateContent/visibleChanges(from:)``); empty when nothing.
    public var visible: [String]
    /// Whether the message alerts (sound, heads-up); an alert always goes at high priority.
    public var alert: Bool
    /// The message's event; a start or an end always goes at high priority.
    public var event: PushEvent
    /// The priority chosen; ``priorityText`` says why.
    public var priority: FCMPriority
    /// Where the time to live came from.
    public var ttl: TTLSource
    /// The time to live, whole seconds (the message's `android.ttl`).
    public var ttlSeconds: Int64
    /// Whether the message carries its collapse key, and the allowance left.
    public var collapse: Collapse
    /// How long the app's update rate held it after the decision.
    public var paced: Millis
    /// How many decisions it carries (more than 1 when newer ones replaced it while it was held).
    public var decisions: Int

    /// A reason with every part given; `paced` and `decisions` are for a message the update rate held.
    public init(
        decision: PushReason, visible: [String], alert: Bool, event: PushEvent, priority: FCMPriority,
        ttl: TTLSource, ttlSeconds: Int64, collapse: Collapse, paced: Millis = 0, decisions: Int = 1
    ) {
        self.decision = decision
        self.visible = visible
        self.alert = alert
        self.event = event
        self.priority = priority
        self.ttl = ttl
        self.ttlSeconds = ttlSeconds
        self.collapse = collapse
        self.paced = paced
        self.decisions = decisions
    }

    /// Why the priority: `HIGH: end`, `HIGH: alert, chip`, `NORMAL: nothing Android shows changed`.
    public var priorityText: String {
        var why: [String] = []
        if event == .end { why.append("end") }
        if event == .start { why.append("start") }
        if alert { why.append("alert") }
        why.append(contentsOf: visible.filter { !(event == .start && $0 == "new notification") })
        if priority == .high { return "HIGH: " + why.joined(separator: ", ") }
        return "NORMAL: nothing Android shows changed"
    }

    public var description: String {
        var decision = self.decision
        decision.budget = .notCharged
        var parts = [decision.description, priorityText]
        let ttlText =
            ttlSeconds >= 86_400 && ttlSeconds % 86_400 == 0
            ? "\(ttlSeconds / 86_400)d" : DurationText.format(ttlSeconds * 1000)
        switch ttl {
        case .staleDate: parts.append("ttl \(ttlText) (stale date)")
        case .expiration: parts.append(ttlSeconds == 0 ? "ttl 0s (now or never)" : "ttl \(ttlText) (expiration)")
        case .end: parts.append("ttl \(ttlText) (an end waits for the phone)")
        }
        switch collapse {
        case .collapsible(let left, let of): parts.append("collapsible \(left)/\(of)")
        case .allowanceSpent(let of): parts.append("not collapsible: FCM's allowance 0/\(of)")
        }
        if paced > 0 {
            var text = "paced \(DurationText.format(paced))"
            if decisions > 1 { text += ", \(decisions) decisions merged" }
            parts.append(text)
        }
        return parts.joined(separator: " · ")
    }
}
