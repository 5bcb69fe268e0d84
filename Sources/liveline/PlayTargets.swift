import Liveline
import LivelineAPNs

/// `--token`, `--start-token` and `--channel` as each activity's ``PushTarget``, for a play to
/// APNs or a server by URL (the embedded mock makes up its own tokens).
enum PlayTargets {
    /// A target for every activity, or a ``PlayError`` naming the one without and the flag
    /// that gives it.
    static func assign(
        tokens: [String], startTokens: [String], channels: [String], _ scenario: Scenario
    ) throws(PlayError) -> [PushTarget] {
        let updateTokens = try values(tokens, to: scenario, flag: "--token")
        let starts = try values(startTokens, to: scenario, flag: "--start-token")
        let channelIDs = try values(channels, to: scenario, flag: "--channel")
        let several = scenario.activities.count > 1
        var targets: [PushTarget] = []
        for activity in scenario.activities {
            let startedByPush = activity.startBeat != nil
            let start = starts[activity.name]
            if startedByPush, start == nil {
                throw PlayError(
                    message:
                        "'\(activity.name)' starts by push: pass its push-to-start token with --start-token \(several ? "\(activity.name)=HEX" : "HEX")"
                )
            }
            if let renewal = activity.policy.renewal, start == nil {
                throw PlayError(
                    message:
                        "'\(activity.name)' renews (renew: before \(DurationText.format(renewal.before))): its successor starts by push, so pass the app's push-to-start token with --start-token \(several ? "\(activity.name)=HEX" : "HEX")"
                )
            }
            if let channel = channelIDs[activity.name] {
                targets.append(PushTarget(startToken: start, updates: .channel(channel)))
            } else if let token = updateTokens[activity.name] {
                targets.append(PushTarget(startToken: start, updates: .token(token)))
            } else if startedByPush {
                targets.append(PushTarget(startToken: start, updates: .reportedToken))
            } else {
                throw PlayError(
                    message:
                        "'\(activity.name)' needs a target: its update token with --token \(several ? "\(activity.name)=HEX" : "HEX") (from the activity's pushTokenUpdates), or --channel"
                )
            }
        }
        return targets
    }

    /// `VALUE` (one activity) or `NAME=VALUE` options, by activity name.
    static func values(_ values: [String], to scenario: Scenario, flag: String) throws(PlayError) -> [String: String] {
        var result: [String: String] = [:]
        for value in values {
            if let equals = value.firstIndex(of: "="),
                scenario.activities.contains(where: { $0.name == String(value[..<equals]) })
            {
                result[String(value[..<equals])] = String(value[value.index(after: equals)...])
            } else if scenario.activities.count == 1, let only = scenario.activities.first {
                result[only.name] = value
            } else {
                throw PlayError(
                    message:
                        "\(flag) \(value): with several activities, write NAME=VALUE (names: \(scenario.activities.map(\.name).joined(separator: ", ")))"
                )
            }
        }
        return result
    }
}
