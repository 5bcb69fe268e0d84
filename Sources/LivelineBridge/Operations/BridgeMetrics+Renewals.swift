import Prometheus

/// The renewals' metric: `liveline_renewals_total{result}`, each device's renewal pushes by
/// what came of them (``RenewalResult``: a fixed set).
extension BridgeMetrics: RenewalObserver {
    public func renewal(_ result: RenewalResult) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "liveline_renewals_total", unitName: "",
                helpText:
                    "Renewal pushes by result: started (a successor), ended (its predecessor), refused, end_failed, in_doubt (a start whose answer is unknown, not sent again)."
            ),
            labels: [("result", result.rawValue)]
        ).increment()
    }
}
