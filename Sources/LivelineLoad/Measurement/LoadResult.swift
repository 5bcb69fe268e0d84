import Histogram
import Liveline

/// Everything a load test measured: what `--json` writes, what reports render and what
/// `liveline report merge` adds up.
///
/// The JSON form is stable: keys are kebab-case, counts are integers, times are milliseconds
/// (`-ms`) and latencies microseconds (`-us`). ``format`` and ``version`` identify it; fields may
/// be added in later versions, never renamed or removed within one. The schema is described
/// field by field in `docs/load-result.md`.
public struct LoadResult: Sendable, Codable, Equatable {
    public static let formatName = "liveline-load-result"
    public static let currentVersion = 1

    public var format = LoadResult.formatName
    public var version = LoadResult.currentVersion
    /// When the run started, ISO-8601 UTC.
    public var startedAt: String
    /// Wall time of the run, from the first push played to the last answer, in milliseconds.
    public var durationMillis: Millis
    public var config: Config
    public var pushes: PushCounts
    public var activities: ActivityCounts
    /// What happened on the wire; nil for `--target discard`.
    public var delivery: DeliveryCounts?
    /// Broadcast mode: pushes sent against activities updated; nil otherwise.
    public var broadcast: BroadcastCounts?
    /// What the mock's simulated devices did; nil unless the target was the embedded mock.
    public var device: DeviceCounts?
    /// Each platform's share of the run, when it had Android activities (`--android-share`);
    /// nil for iOS alone. The other parts are the totals of both.
    public var platforms: PlatformResults?
    public var latency: LatencySummary
    public var series: Series
    public var resources: Resources
    /// Thresholds checked on this result (`--threshold`), in the order given.
    public var thresholds: [ThresholdOutcome] = []
    /// Results merged into this one (`liveline report merge`), 1 for a single run.
    public var mergedRuns: Int = 1

    enum CodingKeys: String, CodingKey {
        case format, version, config, pushes, activities, delivery, broadcast, device, latency, series, resources,
            thresholds, platforms
        case startedAt = "started-at"
        case durationMillis = "duration-ms"
        case mergedRuns = "merged-runs"
    }

    // MARK: Parts

    /// How the test was set up.
    public struct Config: Sendable, Codable, Equatable {
        public struct ScenarioEntry: Sendable, Codable, Equatable {
            public var file: String
            public var name: String
            public var weight: Int
            /// Activities of the test that play it (this shard's, before a merge).
            public var activities: Int
        }

        public var scenarios: [ScenarioEntry]
        /// Activities in the whole test (`--activities`).
        public var activities: Int
        /// `I/N`.
        public var shard: String
        /// Activities this run played; in a merge, the sum.
        public var shardActivities: Int
        /// `all-at-once`, `ramp` or `rate`.
        public var arrivals: String
        public var rampMillis: Millis?
        public var ratePerSecond: Double?
        /// `--seed`, when given (each file's own seed otherwise).
        public var seed: UInt64?
        /// `virtual` or `real`.
        public var clock: String
        public var speed: Double
        /// `discard`, `mock` or the URL.
        public var target: String
        /// `h2c` or `tls`; nil for discard.
        public var transport: String?
        /// Broadcast mode: how many channels.
        public var channels: Int?
        public var maxInFlight: Int?
        public var connections: Int?
        /// Engine threads (discard with the virtual clock plays on several).
        public var threads: Int
        /// What latency is measured from: `due-time` (the push's intended time, real clock),
        /// `release-time` (when the runner released it, virtual clock), or `none`.
        public var latencyFrom: String
        /// `--duration`, when the run was cut short at that wall time.
        public var timeLimitMillis: Millis?
        /// `--android-share`: the share of activities on Android, when there were any.
        public var androidShare: Double?
        /// Where Android's messages went: `mock` or the FCM URL.
        public var fcmTarget: String?

        enum CodingKeys: String, CodingKey {
            case scenarios, activities, shard, arrivals, seed, clock, speed, target, transport, channels, connections,
                threads
            case shardActivities = "shard-activities"
            case rampMillis = "ramp-ms"
            case ratePerSecond = "rate-per-second"
            case maxInFlight = "max-in-flight"
            case latencyFrom = "latency-from"
            case timeLimitMillis = "time-limit-ms"
            case androidShare = "android-share"
            case fcmTarget = "fcm-target"
        }
    }

    /// What the engines produced, before the wire.
    public struct PushCounts: Sendable, Codable, Equatable {
        public var produced = 0
        public var bytes = 0
        public var highPriority = 0
        public var lowPriority = 0
        public var starts = 0
        public var updates = 0
        public var ends = 0
        /// Pushes carrying more than one beat.
        public var coalesced = 0
        public var heartbeats = 0
        public var downgraded = 0
        public var deferred = 0
        public var maxDurationEnds = 0
        /// Over the payload limit: never sent.
        public var rejectedTooLarge = 0
        public var largestPayload = 0

        public init() {}

        enum CodingKeys: String, CodingKey {
            case produced, bytes, starts, updates, ends, coalesced, heartbeats, downgraded, deferred
            case highPriority = "priority-10"
            case lowPriority = "priority-5"
            case maxDurationEnds = "max-duration-ends"
            case rejectedTooLarge = "rejected-too-large"
            case largestPayload = "largest-payload"
        }
    }

    public struct ActivityCounts: Sendable, Codable, Equatable {
        /// Activities played (channels count once each in broadcast mode; see ``BroadcastCounts``).
        public var played = 0
        /// Activities that saw a budget downgrade or deferral.
        public var exhaustedBudget = 0
        /// Activities the target stopped (410, bad token), by reason.
        public var stopped = 0
        public var stopReasons: [String: Int] = [:]
        /// Activities whose story had not finished when the run stopped (`--duration`).
        public var unfinished = 0

        public init() {}

        enum CodingKeys: String, CodingKey {
            case played, stopped, unfinished
            case exhaustedBudget = "exhausted-budget"
            case stopReasons = "stop-reasons"
        }
    }

    /// Every push handed to the target, accounted for.
    ///
    /// `submitted = delivered + superseded + not-renewed + rejected + gave-up + dropped-after-stop
    /// + lost`.
    public struct DeliveryCounts: Sendable, Codable, Equatable {
        public var submitted = 0
        /// APNs answered 200.
        public var delivered = 0
        /// Replaced by a newer push of the same activity before it went (newest state wins).
        public var superseded = 0
        /// A renewal's pushes not sent because the activity cannot renew: a load test's
        /// activities are started by their app (an update token each, no push-to-start token),
        /// so their stories carry on in the activity the system ends at its limit. No error.
        public var notRenewed = 0
        /// Refused for good (4xx).
        public var rejected = 0
        /// Retries ran out.
        public var gaveUp = 0
        /// In flight or waiting when their activity was stopped (410, bad token).
        public var droppedAfterStop = 0
        /// Never answered: should be 0.
        public var lost = 0
        /// Retries (429, 5xx, lost connections), by failure.
        public var retries = 0
        public var retryFailures: [String: Int] = [:]
        /// Final answers by HTTP status.
        public var statuses: [String: Int] = [:]
        /// Final error answers by APNs reason.
        public var reasons: [String: Int] = [:]
        /// A setup problem that stopped the run.
        public var configurationError: String?

        public init() {}

        /// Reads counts written before `not-renewed` was counted as 0 of it.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            submitted = try values.decode(Int.self, forKey: .submitted)
            delivered = try values.decode(Int.self, forKey: .delivered)
            superseded = try values.decode(Int.self, forKey: .superseded)
            notRenewed = try values.decodeIfPresent(Int.self, forKey: .notRenewed) ?? 0
            rejected = try values.decode(Int.self, forKey: .rejected)
            gaveUp = try values.decode(Int.self, forKey: .gaveUp)
            droppedAfterStop = try values.decode(Int.self, forKey: .droppedAfterStop)
            lost = try values.decode(Int.self, forKey: .lost)
            retries = try values.decode(Int.self, forKey: .retries)
            retryFailures = try values.decode([String: Int].self, forKey: .retryFailures)
            statuses = try values.decode([String: Int].self, forKey: .statuses)
            reasons = try values.decode([String: Int].self, forKey: .reasons)
            configurationError = try values.decodeIfPresent(String.self, forKey: .configurationError)
        }

        /// Pushes that did not get through: rejected, gave up, dropped or lost.
        public var errors: Int { rejected + gaveUp + droppedAfterStop + lost }
        /// Pushes whose fate is known.
        public var accounted: Int {
            delivered + superseded + notRenewed + rejected + gaveUp + droppedAfterStop + lost
        }

        /// Adds another run's or platform's counts; the first configuration error is kept.
        public mutating func add(_ other: Self) {
            submitted += other.submitted
            delivered += other.delivered
            superseded += other.superseded
            notRenewed += other.notRenewed
            rejected += other.rejected
            gaveUp += other.gaveUp
            droppedAfterStop += other.droppedAfterStop
            lost += other.lost
            retries += other.retries
            retryFailures.merge(other.retryFailures, uniquingKeysWith: +)
            statuses.merge(other.statuses, uniquingKeysWith: +)
            reasons.merge(other.reasons, uniquingKeysWith: +)
            configurationError = configurationError ?? other.configurationError
        }

        enum CodingKeys: String, CodingKey {
            case submitted, delivered, superseded, rejected, lost, retries, statuses, reasons
            case gaveUp = "gave-up"
            case notRenewed = "not-renewed"
            case droppedAfterStop = "dropped-after-stop"
            case retryFailures = "retry-failures"
            case configurationError = "configuration-error"
        }
    }

    /// One platform's share of a run: its activities, what its rules sent of the engines'
    /// decisions (APNs pushes on iOS, FCM messages on Android), what the wire did with them, and
    /// their latency.
    public struct PlatformResult: Sendable, Codable, Equatable {
        /// Activities that played on the platform.
        public var activities = 0
        /// Pushes (iOS) or messages (Android) made of the engines' decisions.
        public var produced = 0
        /// APNs priority 10, or FCM `HIGH`.
        public var highPriority = 0
        /// APNs priority 5, or FCM `NORMAL`.
        public var normalPriority = 0
        /// Payload bytes (iOS), or bytes of data keys and values (Android).
        public var bytes = 0
        /// The largest payload or data message, bytes.
        public var largest = 0
        /// iOS: high-priority pushes the budget sent at priority 5. Android has no budget: 0.
        public var downgraded = 0
        /// iOS: high-priority pushes the budget held back. Android: 0.
        public var deferred = 0
        /// Android: messages that waited for their slot under the app's update rate.
        public var paced = 0
        /// Android: messages that carried more than one decision (newer ones replaced a waiting one).
        public var merged = 0
        /// Android: messages sent without a collapse key, FCM's collapsible allowance spent.
        public var withoutCollapseKey = 0
        /// Every push or message handed to the target, accounted for.
        public var delivery = DeliveryCounts()
        /// The latency of the platform's answers.
        public var latency: LatencySummary
        /// Android against the embedded mock FCM: what the phones did with the messages, by
        /// outcome (`posted`, `updated`, `droppedByRate`, `wouldNotRender`…); nil elsewhere.
        public var phones: [String: Int]?

        /// A result with no counts yet and `latency`.
        public init(latency: LatencySummary) {
            self.latency = latency
        }

        enum CodingKeys: String, CodingKey {
            case activities, produced, bytes, downgraded, deferred, paced, merged, delivery, latency, phones
            case highPriority = "high-priority"
            case normalPriority = "normal-priority"
            case largest = "largest-payload"
            case withoutCollapseKey = "without-collapse-key"
        }
    }

    /// Both platforms' results.
    public struct PlatformResults: Sendable, Codable, Equatable {
        /// The activities on iOS, through APNs.
        public var ios: PlatformResult
        /// The activities on Android, through FCM.
        public var android: PlatformResult

        /// The results with the parts given.
        public init(ios: PlatformResult, android: PlatformResult) {
            self.ios = ios
            self.android = android
        }

        /// The result of `platform`.
        public subscript(platform: Platform) -> PlatformResult {
            get { platform == .android ? android : ios }
            set {
                if platform == .android { android = newValue } else { ios = newValue }
            }
        }
    }

    /// Broadcast mode against per-token fan-out.
    public struct BroadcastCounts: Sendable, Codable, Equatable {
        public var channels = 0
        /// Activities subscribed to those channels.
        public var subscribers = 0
        /// Broadcast pushes APNs accepted.
        public var pushesSent = 0
        /// Subscriber updates those pushes carried (each push × its channel's subscribers).
        public var activityUpdates = 0

        public init() {}

        /// Per-token fan-out needs one push per activity update.
        public var fanOutPushes: Int { activityUpdates }

        enum CodingKeys: String, CodingKey {
            case channels, subscribers
            case pushesSent = "pushes-sent"
            case activityUpdates = "activity-updates"
        }
    }

    /// Latency in microseconds: the percentiles, and the whole histogram so results merge.
    public struct LatencySummary: Sendable, Codable, Equatable {
        public var count: Int
        public var minMicros: UInt64
        public var meanMicros: Double
        public var p50Micros: UInt64
        public var p90Micros: UInt64
        public var p99Micros: UInt64
        public var p999Micros: UInt64
        public var maxMicros: UInt64
        public var histogram: EncodedHistogram

        enum CodingKeys: String, CodingKey {
            case count, histogram
            case minMicros = "min-us"
            case meanMicros = "mean-us"
            case p50Micros = "p50-us"
            case p90Micros = "p90-us"
            case p99Micros = "p99-us"
            case p999Micros = "p99.9-us"
            case maxMicros = "max-us"
        }

        /// The summary of `histogram` (values in microseconds).
        public init(_ histogram: Histogram<UInt64>) {
            count = Int(histogram.totalCount)
            let empty = histogram.totalCount == 0
            minMicros = empty ? 0 : histogram.min
            meanMicros = empty ? 0 : (histogram.mean * 10).rounded() / 10
            p50Micros = empty ? 0 : histogram.valueAtPercentile(50)
            p90Micros = empty ? 0 : histogram.valueAtPercentile(90)
            p99Micros = empty ? 0 : histogram.valueAtPercentile(99)
            p999Micros = empty ? 0 : histogram.valueAtPercentile(99.9)
            maxMicros = empty ? 0 : histogram.max
            self.histogram = EncodedHistogram(histogram)
        }

        /// A given percentile (0–100), in microseconds, from the histogram.
        public func percentile(_ p: Double) -> UInt64? {
            guard count > 0, let histogram = try? histogram.decoded() else { return nil }
            return histogram.valueAtPercentile(p)
        }
    }

    /// Per-interval series, oldest first; each array has one entry per interval.
    public struct Series: Sendable, Codable, Equatable {
        public var intervalMillis: Millis = 1000
        /// Pushes produced by the engines (discard) or released to the target.
        public var sent: [Int] = []
        /// Final answers (delivered or rejected).
        public var completed: [Int] = []
        public var errors: [Int] = []
        /// Latency percentiles of the answers in each interval, microseconds; nil when none.
        public var latencyP50: [UInt64?] = []
        public var latencyP90: [UInt64?] = []
        public var latencyP99: [UInt64?] = []
        public var latencyMax: [UInt64?] = []

        public init() {}

        public var count: Int { max(sent.count, completed.count, latencyP50.count) }

        enum CodingKeys: String, CodingKey {
            case sent, completed, errors
            case intervalMillis = "interval-ms"
            case latencyP50 = "latency-p50-us"
            case latencyP90 = "latency-p90-us"
            case latencyP99 = "latency-p99-us"
            case latencyMax = "latency-max-us"
        }
    }

    public struct Resources: Sendable, Codable, Equatable {
        /// Peak resident memory (VmHWM), bytes; 0 where unknown.
        public var peakRSSBytes: Int
        /// CPU time of the process (user + system), milliseconds.
        public var cpuMillis: Millis
        /// Time spent building engines before the run, milliseconds.
        public var setupMillis: Millis

        enum CodingKeys: String, CodingKey {
            case peakRSSBytes = "peak-rss-bytes"
            case cpuMillis = "cpu-ms"
            case setupMillis = "setup-ms"
        }
    }

    // MARK: Derived

    /// Pushes per second over the run: delivered ones against a target, produced ones for discard.
    public var throughput: Double {
        guard durationMillis > 0 else { return 0 }
        let count = delivery.map { $0.delivered } ?? pushes.produced
        return Double(count) * 1000 / Double(durationMillis)
    }

    /// Errors: delivery errors plus pushes over the size limit.
    public var errorCount: Int { (delivery?.errors ?? 0) + pushes.rejectedTooLarge }

    /// Errors as a fraction of the pushes attempted.
    public var errorRate: Double {
        let attempted = (delivery?.submitted ?? pushes.produced) + pushes.rejectedTooLarge
        return attempted == 0 ? 0 : Double(errorCount) / Double(attempted)
    }
}
