import Liveline
import LivelineAPNs
import Prometheus
import Synchronization

/// The halts' metrics: `liveline_apns_halted{environment,reason}`, the apps halted now by
/// environment and APNs reason (0 once they resume), and `liveline_apns_probes_total{environment,
/// result}`. Reasons come from APNs' answers (a small set Apple names) or Liveline's own
/// (`TLS`, `HTTP/2`, `NoClientForEnvironment`), never from a request.
extension BridgeMetrics: APNsHaltObserver {
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    public func apnsHalted(_ halts: [APNsHalt]) {
        let descriptor = Self.descriptor(
            "liveline_apns_halted",
            "Apps whose sending is halted by a setup error APNs reported, by environment and reason (1 each; 0 once resumed)."
        )
        var counts: [HaltLabels: Int] = [:]
        for halt in halts {
            counts[HaltLabels(environment: halt.scope.environment.rawValue, reason: halt.problem.reason), default: 0] +=
                1
        }
        // Series once set stay, at 0 after their halt is over, so a dashboard sees it end.
        let all = haltSeries.withLock { series in
            series.formUnion(counts.keys)
            return series
        }
        for labels in all {
            registry.makeGauge(
                descriptor: descriptor, labels: [("environment", labels.environment), ("reason", labels.reason)]
            ).set(to: Double(counts[labels] ?? 0))
        }
    }

    public func apnsProbe(environment: APNsEnvironment, result: String) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "liveline_apns_probes_total",
                "Results of the first refusal (halted) and of each probe of a halted app (refused, resumed), by environment."
            ),
            labels: [("environment", environment.rawValue), ("result", result)]
        ).increment()
    }
}

/// The labels of one `liveline_apns_halted` series.
struct HaltLabels: Hashable, Sendable {
    var environment: String
    var reason: String
}
