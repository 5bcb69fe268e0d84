import Prometheus

/// The stream sources' metrics, in the bridge's registry beside the webhooks'. Labels are the
/// configured source name, configured event types (anything else is `other`), and small fixed
/// words, so a feed cannot grow the number of series.
extension BridgeMetrics {
    /// What became of one event a stream delivered (live or recovered).
    public enum StreamEventResult: String, Sendable, Hashable, CaseIterable {
        /// Stored in the inbox, to be dispatched.
        case stored
        /// Stored and recorded, but no rule names its type.
        case ignored
        /// Already in the inbox: a recovery overlapping what the stream delivered, or a repeat.
        case duplicate
        /// The source's rules cannot read it; logged and dropped.
        case unmappable
    }

    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// 1 while the stream of `source` is connected (answered 200), else 0.
    public func streamConnected(source: String, _ connected: Bool) {
        registry.makeGauge(
            descriptor: Self.descriptor("liveline_stream_connected", "1 while the stream source is connected, else 0."),
            labels: [("source", source)]
        ).set(to: connected ? 1.0 : 0.0)
    }

    /// Counts a connection that ended or failed and will be made again, by why (`connect`,
    /// `tls`, `http_4xx`, `heartbeat_timeout`, `closed`, `ended`, `store`).
    public func streamReconnect(source: String, reason: String) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "liveline_stream_reconnects_total", "Stream connections lost or refused and tried again, by reason."),
            labels: [("source", source), ("reason", reason)]
        ).increment()
    }

    /// Counts one gap recovery from the recover URL: `recovered` or `failed`.
    public func streamGapRecovery(source: String, result: String) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "liveline_stream_gap_recoveries_total", "Gaps in a stream recovered from its recover URL, by result."),
            labels: [("source", source), ("result", result)]
        ).increment()
    }

    /// Counts one event a stream delivered, by its type (a configured one, else `other`) and
    /// what became of it.
    public func streamEvent(source: String, type: String, result: StreamEventResult) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "liveline_stream_events_total",
                "Events read from streams (live or recovered), by source, type and result."),
            labels: [("source", source), ("type", type), ("result", result.rawValue)]
        ).increment()
    }
}
