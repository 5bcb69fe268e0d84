import Liveline
import Prometheus
import Synchronization

/// The bridge's metrics, kept in one explicit Prometheus registry that `GET /metrics` prints.
///
/// Nothing here touches the process-wide swift-metrics bootstrap: each bridge (and each test)
/// owns its registry, so two bridges in one process never count into each other. The HTTP
/// server counts webhooks and refused connections; the store's depths are set every few
/// seconds and on each `/metrics` and `/readyz`; the outbox sender counts APNs answers, retries,
/// dead letters and the receipt-to-answer latency; the pruner counts deleted rows; the streams
/// and the fan-out sender count in `+Streams` and `+Audiences`, the halts in `+Halts`.
///
/// Label values come from configuration (source names, event types), from small fixed sets
/// (results, HTTP statuses, APNs reasons), or, for the fan-out pushes of `+Audiences`, from an
/// activity key. No webhook or feed can make a series: a key is counted only when a push goes
/// to its followers, and only an activity registered by a client holding an API key has
/// followers. The key series are as many as the keys those clients gave followers, and each
/// stays until the process restarts.
public final class BridgeMetrics: Sendable {
    /// What became of one webhook, as the `result` label says it.
    public enum WebhookResult: String, Sendable, Hashable, CaseIterable {
        /// Stored, and its type has a rule.
        case stored
        /// Stored and acknowledged, but no rule names its type.
        case ignored
        /// Already in the inbox; acknowledged again, nothing changed.
        case duplicate
        /// The signature or credentials were wrong, or the timestamp out of the window (401).
        case unauthorized
        /// The request was not shaped as the source's scheme requires (400).
        case badRequest = "bad_request"
        /// The body is not JSON (400).
        case badJSON = "bad_json"
        /// JSON that the source's rules cannot map (422).
        case unmappable
        /// The body is over the limit (413).
        case tooLarge = "too_large"
        /// Over the source's rate limit (429).
        case rateLimited = "rate_limited"
        /// A Content-Type that is not JSON (415).
        case unsupportedMediaType = "unsupported_media_type"
        /// No source has the name in the URL (404); counted under an empty source.
        case unknownSource = "unknown_source"
        /// The store failed; the sender was told to retry (503).
        case storeFailed = "store_failed"
    }

    /// The registry `GET /metrics` prints.
    public let registry: PrometheusCollectorRegistry

    private let receiptToAnswerHistogram: ValueHistogram
    private let inboxPending: Gauge
    private let outboxDepth: Gauge
    private let outboxStartsInDoubt: Gauge
    private let deadLetterDepth: Gauge
    private let activityCount: Gauge
    private let deadLetteredCounter: Counter
    private let connectionsRefusedCounter: Counter
    private let pruneBatchHistogram: ValueHistogram
    /// Every `liveline_apns_halted` series set so far (``apnsHalted(_:)``).
    let haltSeries = Mutex<Set<HaltLabels>>([])

    /// Upper bounds of the receipt-to-APNs histogram, in seconds: 1 ms to 10 s, about three
    /// buckets per decade.
    public static let latencyBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// Upper bounds of the prune-batch histogram, in seconds: 0.5 ms to 250 ms.
    public static let pruneBatchBuckets: [Double] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25]

    /// The metrics' names and help texts (made on use: the descriptor type is not `Sendable`).
    private enum Name {
        static var webhooks: MetricNameDescriptor {
            descriptor("liveline_webhooks_total", "Webhooks received, by source and result.")
        }
        static var pushes: MetricNameDescriptor {
            descriptor(
                "liveline_pushes_total",
                "Answers to the keys' own pushes, by platform (ios: APNs, android: FCM), HTTP status and reason (empty when none)."
            )
        }
        static var receiptToAnswer: MetricNameDescriptor {
            descriptor(
                "liveline_receipt_to_apns_seconds",
                "Seconds from a webhook's receipt to APNs' answer for the push it caused.")
        }
        static var inboxPending: MetricNameDescriptor {
            descriptor("liveline_inbox_pending", "Stored events not yet applied or superseded.")
        }
        static var outboxDepth: MetricNameDescriptor {
            descriptor("liveline_outbox_depth", "Pushes waiting to be sent or retried.")
        }
        static var outboxStartsInDoubt: MetricNameDescriptor {
            descriptor(
                "liveline_outbox_starts_in_doubt",
                "Activities' starts sent by an instance that stopped before APNs' answer was recorded: not sent again until the app reports a token."
            )
        }
        static var deadLetters: MetricNameDescriptor {
            descriptor("liveline_dead_letters", "Pushes given up on, kept for inspection.")
        }
        static var activities: MetricNameDescriptor { descriptor("liveline_activities", "Registered activities.") }
        static var deadLettered: MetricNameDescriptor {
            descriptor("liveline_dead_lettered_total", "Pushes moved to the dead letters.")
        }
        static var connectionsRefused: MetricNameDescriptor {
            descriptor(
                "liveline_connections_refused_total",
                "HTTP connections closed on arrival because max-connections were open.")
        }
        static var pruned: MetricNameDescriptor {
            descriptor(
                "liveline_store_pruned_rows_total",
                "Rows the retention policy deleted, by table (inbox_events, dead_letters).")
        }
        static var pruneBatch: MetricNameDescriptor {
            descriptor(
                "liveline_store_prune_batch_seconds",
                "Seconds each retention batch's statements held the store (its wait for the connection and its commit left out)."
            )
        }
        static var retries: MetricNameDescriptor {
            descriptor("liveline_push_retries_total", "Push attempts that failed and were scheduled again, by reason.")
        }

        static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
        }
    }

    /// - Parameter registry: where the metrics live; a fresh one by default.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        receiptToAnswerHistogram = registry.makeValueHistogram(
            descriptor: Name.receiptToAnswer, buckets: Self.latencyBuckets)
        inboxPending = registry.makeGauge(descriptor: Name.inboxPending)
        outboxDepth = registry.makeGauge(descriptor: Name.outboxDepth)
        outboxStartsInDoubt = registry.makeGauge(descriptor: Name.outboxStartsInDoubt)
        deadLetterDepth = registry.makeGauge(descriptor: Name.deadLetters)
        activityCount = registry.makeGauge(descriptor: Name.activities)
        deadLetteredCounter = registry.makeCounter(descriptor: Name.deadLettered)
        connectionsRefusedCounter = registry.makeCounter(descriptor: Name.connectionsRefused)
        pruneBatchHistogram = registry.makeValueHistogram(descriptor: Name.pruneBatch, buckets: Self.pruneBatchBuckets)
    }

    /// Counts one webhook of `source` (a configured name; empty when the name was unknown).
    public func webhook(source: String, result: WebhookResult) {
        registry.makeCounter(descriptor: Name.webhooks, labels: [("source", source), ("result", result.rawValue)])
            .increment()
    }

    /// Counts one answer from APNs (`ios`) or FCM (`android`): its HTTP status (0 when none
    /// came) and its reason (APNs' `reason`, FCM's error status).
    public func pushAnswered(platform: Platform, status: Int, reason: String?) {
        registry.makeCounter(
            descriptor: Name.pushes,
            labels: [("platform", platform.rawValue), ("status", String(status)), ("reason", reason ?? "")]
        ).increment()
    }

    /// Counts one connection closed on arrival over `max-connections`.
    public func connectionRefused() {
        connectionsRefusedCounter.increment()
    }

    /// Records the time from a webhook's receipt to APNs' answer for the push it caused.
    public func receiptToAnswer(seconds: Double) {
        receiptToAnswerHistogram.record(max(seconds, 0))
    }

    /// Sets the depth gauges from the store's counts.
    public func setDepths(_ counts: StoreCounts) {
        inboxPending.set(Double(counts.pendingEvents))
        outboxDepth.set(Double(counts.outbox))
        outboxStartsInDoubt.set(Double(counts.startsInDoubt))
        deadLetterDepth.set(Double(counts.deadLetters))
        activityCount.set(Double(counts.activities))
    }

    /// Counts one push moved to the dead letters.
    public func deadLettered() {
        deadLetteredCounter.increment()
    }

    /// Counts one failed attempt scheduled again, by why it failed (an APNs reason, a transport
    /// error's kind).
    public func retried(reason: String) {
        registry.makeCounter(descriptor: Name.retries, labels: [("reason", reason)]).increment()
    }

    /// Counts rows of `table` that one retention batch deleted, and the time the batch took.
    public func pruned(table: String, rows: Int, took: Duration) {
        registry.makeCounter(descriptor: Name.pruned, labels: [("table", table)]).increment(by: Int64(rows))
        pruneBatchHistogram.record(BridgeClock.seconds(took))
    }

    /// Everything in the Prometheus text exposition format (version 0.0.4).
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    /// The `Content-Type` of ``exposition()``.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
