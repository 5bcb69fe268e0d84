import LivelineCore
import Yams

/// A policy's `renew:` as written: `none`, or what it sets. Its alert is read with each activity,
/// since its templates may name the activity's content-state fields.
enum RenewalOverride {
    /// `renew: none`: this activity does not renew, whatever the file's policy says.
    case off
    /// `renew: {before, until, alert}`.
    case on(before: Millis, until: Millis, alert: Node?, location: SourceLocation)
}

extension ScenarioReader {
    static let renewalKeys = ["before", "until", "alert"]

    /// `renew: {before: 7h30m, until: 20h, alert: {title, body}}`, or `renew: none`.
    mutating func renewal(_ node: Node) -> RenewalOverride? {
        if case .scalar(let scalar) = node, scalar.string == "none" { return .off }
        guard
            let fields = fields(
                of: node, in: "renew", allowed: Self.renewalKeys,
                required: ["before": "how long into each activity its successor starts, like 7h30m"])
        else {
            return nil
        }
        guard let before = fields["before"].flatMap({ duration($0, "renew's before") }) else { return nil }
        var until = Renewal.defaultUntil
        if let node = fields["until"] {
            guard let value = duration(node, "renew's until (the longest the story runs)") else { return nil }
            until = value
        }
        return .on(before: before, until: until, alert: fields["alert"], location: location(node))
    }

    /// The policy's renewal for one activity, its alert read against the activity's first
    /// content-state, and checked against its max-duration; nil, after reporting, when it does not hold.
    mutating func renewal(
        _ override: RenewalOverride?, policy: Policy, state: ValueTemplate
    ) -> Renewal? {
        guard case .on(let before, let until, let alertNode, let location) = override else { return nil }
        if let problem = Renewal.problem(before: before, until: until, maxDuration: policy.maxDuration) {
            log.error(location, problem)
            return nil
        }
        var alert = Alert<TextTemplate>(title: .plain(TextTemplate(scenarioName)), body: nil, sound: nil)
        if let alertNode {
            let scope = TemplateScope(
                allowsN: true, allowsInput: false, state: state, place: "in renew's alert (n is the renewal's number)")
            guard let read = self.alert(alertNode, scope: scope) else { return nil }
            if read.sound != nil, case .mapping(let mapping) = alertNode,
                let sound = mapping.first(where: { $0.key.scalar?.string == "sound" })
            {
                log.error(
                    self.location(sound.key),
                    "renew's alert takes no sound: a renewal only carries the story on, so the successor starts quietly (iOS still needs the alert's text to show it)"
                )
                return nil
            }
            alert = read
        }
        return Renewal(before: before, until: until, alert: alert, location: location)
    }

    /// The checks a renewing activity needs once it is whole: a start by channel cannot renew,
    /// and one the app starts renews only where a push-to-start token is given.
    mutating func checkRenewal(_ activity: ActivitySpec) {
        guard let renewal = activity.policy.renewal else { return }
        let location = renewal.location ?? activity.location
        let start = activity.startBeat.flatMap { activity.beats[$0].start }
        switch start {
        case .inputPushChannel?:
            log.error(
                location,
                "'\(activity.name)' starts with input-push-channel, so it cannot renew: its activity has no update token of its own to end it by, and an end on the channel would end the successor too; start it with input-push-token, or remove renew"
            )
        case nil:
            log.warning(
                location,
                "'\(activity.name)' is started by the app: its renewals go to a push-to-start token given to play (--start-token; the embedded mock makes one up) or registered with the bridge, and a device without one keeps its activity until the system ends it"
            )
        case .plain?, .inputPushToken?:
            break
        }
    }
}
