import LivelineCore
import Yams

/// A `policy:` block as written: only the keys it sets.
struct PolicyOverrides {
    var priority: Priority?
    var budget: Int?
    var frequentUpdates: Bool?
    var overBudget: Policy.OverBudget?
    var minInterval: Millis?
    var staleAfter: Millis??
    var heartbeat: Millis?
    var dismissal: Dismissal?
    var expiration: Millis?
    var maxDuration: Millis?
    /// `renew:`, applied per activity (``ScenarioReader/renewal(_:policy:state:)``).
    var renewal: RenewalOverride?

    /// The policy that results from applying the file's and then the activity's overrides.
    static func resolve(_ layers: [PolicyOverrides]) -> Policy {
        var policy = Policy()
        var budget: Int?
        for layer in layers {
            if let v = layer.priority { policy.priority = v }
            if let v = layer.budget { budget = v }
            if let v = layer.frequentUpdates { policy.frequentUpdates = v }
            if let v = layer.overBudget { policy.overBudget = v }
            if let v = layer.minInterval { policy.minInterval = v }
            if let v = layer.staleAfter { policy.staleAfter = v }
            if let v = layer.heartbeat { policy.heartbeat = v }
            if let v = layer.dismissal { policy.dismissal = v }
            if let v = layer.expiration { policy.expiration = v }
            if let v = layer.maxDuration { policy.maxDuration = v }
        }
        policy.budget = budget ?? BudgetBucket.defaultPerHour(frequentUpdates: policy.frequentUpdates)
        return policy
    }
}

extension ScenarioReader {
    static let policyKeys = [
        "priority", "budget", "frequent-updates", "over-budget", "min-interval", "stale-after",
        "heartbeat", "dismissal", "expiration", "max-duration", "renew",
    ]

    mutating func policy(_ node: Node) -> PolicyOverrides {
        var policy = PolicyOverrides()
        guard let fields = fields(of: node, in: "policy", allowed: Self.policyKeys) else { return policy }
        if let node = fields["priority"] { policy.priority = priority(node) }
        if let node = fields["budget"], let value = integer(node, "budget (priority-10 pushes per hour)") {
            if value < 0 {
                log.error(
                    location(node), "expected budget as a whole number of pushes per hour, 0 or more; found \(value)")
            } else {
                policy.budget = value
            }
        }
        if let node = fields["frequent-updates"] { policy.frequentUpdates = bool(node, "frequent-updates") }
        if let node = fields["over-budget"] {
            policy.overBudget = choice(node, "over-budget", [("downgrade", .downgrade), ("defer", .defer)])
        }
        if let node = fields["min-interval"] { policy.minInterval = duration(node, "min-interval") }
        if let node = fields["stale-after"] { policy.staleAfter = staleAfter(node) }
        if let node = fields["heartbeat"] { policy.heartbeat = duration(node, "heartbeat") }
        if let node = fields["dismissal"] { policy.dismissal = dismissal(node) }
        if let node = fields["expiration"] { policy.expiration = duration(node, "expiration") }
        if let node = fields["max-duration"], let value = duration(node, "max-duration") {
            if value > Policy.activityKitMaxDuration || value <= 0 {
                log.error(
                    location(node),
                    "expected max-duration between 1s and 8h: ActivityKit ends every activity after 8 hours; found \(DurationText.format(value))"
                )
            } else {
                policy.maxDuration = value
            }
        }
        if let node = fields["renew"] { policy.renewal = renewal(node) }
        return policy
    }

    mutating func priority(_ node: Node) -> Priority? {
        choice(node, "priority", [("high", .high), ("low", .low)])
    }

    /// A duration, or `none`.
    mutating func staleAfter(_ node: Node) -> Millis?? {
        if case .scalar(let scalar) = node, scalar.string == "none" { return .some(nil) }
        guard case .scalar(let scalar) = node, let value = DurationText.parse(scalar.string), value > 0 else {
            log.error(
                location(node),
                "expected stale-after as \(DurationText.expected) (more than 0), or none; found \(Self.describe(node))")
            return nil
        }
        return .some(value)
    }

    /// `default`, `immediate` or a duration.
    mutating func dismissal(_ node: Node) -> Dismissal? {
        if case .scalar(let scalar) = node {
            if scalar.string == "default" { return .default }
            if scalar.string == "immediate" { return .immediate }
            if let value = DurationText.parse(scalar.string) { return value == 0 ? .immediate : .after(value) }
        }
        log.error(
            location(node),
            "expected dismissal as default, immediate or \(DurationText.expected); found \(Self.describe(node))")
        return nil
    }
}
