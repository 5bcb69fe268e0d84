import Foundation
import Liveline
import Yams

/// `apns:`'s keys about sending, beside the credentials: the environments the key serves, and
/// how often a halted app and environment is probed.
///
/// ```yaml
/// apns:
///   environment: production              # a token registered without one
///   environments: [sandbox, production]  # both, with the one key (by default: environment alone)
///   probe-interval: 5s                   # one waiting push tries a halted app again this often
/// ```
extension BridgeConfigReader {
    mutating func apnsSending(
        _ fields: Fields, environment: APNsEnvironment
    ) -> (environments: [APNsEnvironment], probeInterval: Duration) {
        var environments = [environment]
        if let node = fields["environments"] {
            let items: [Node]
            switch node {
            case .sequence(let list): items = Array(list)
            default: items = [node]
            }
            var chosen: [APNsEnvironment] = []
            for item in items {
                if let value = base.choice(
                    item, "an environment", APNsEnvironment.allCases.map { ($0.rawValue, $0) })
                {
                    chosen.append(value)
                }
            }
            if items.isEmpty {
                error(node, "expected environments as a list of sandbox and production, found an empty list")
            } else if !chosen.isEmpty, !chosen.contains(environment) {
                error(
                    node,
                    "environments [\(chosen.map(\.rawValue).joined(separator: ", "))] leave out environment '\(environment.rawValue)', the one a token registered without one goes to; add it"
                )
            }
            environments += chosen
        }
        var probeInterval = APNsSettings.standardProbeInterval
        if let node = fields["probe-interval"], let millis = base.duration(node, "probe-interval") {
            if (1000...600_000).contains(millis) {
                probeInterval = .milliseconds(millis)
            } else {
                error(node, "expected probe-interval from 1s to 10m, found \(ScenarioReader.describe(node))")
            }
        }
        return (Array(Set(environments)).sorted(), probeInterval)
    }
}
