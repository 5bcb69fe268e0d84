import Histogram
import Liveline

/// Assembles a ``LoadResult`` the one way every run mode needs: the configuration as run, the
/// timing (setup, the run's clock start, its end), what was counted, and the process's
/// resources at the end.
///
/// A mode fills in what it measured (``pushes``, ``activities``, ``series``, ``latency`` and,
/// over the network, ``delivery`` and ``broadcast``), marks ``began(at:)`` when its clock starts,
/// and calls ``build(endedAt:)`` once.
struct LoadResultBuilder {
    /// What latency is measured from.
    enum LatencyOrigin: String {
        /// The push's intended time (real clock).
        case dueTime = "due-time"
        /// When the runner released it (virtual clock).
        case releaseTime = "release-time"
        /// Not measured (discard with the virtual clock).
        case none
    }

    let configuration: LoadConfiguration
    let setupStart: Int64
    var threads: Int
    let latencyFrom: LatencyOrigin
    /// ISO-8601 UTC: when the builder was made, or the run's clock started (``began(at:)``).
    private(set) var startedAt: String
    /// When the run's clock started, in ``MicroClock`` microseconds: setup ends here and the
    /// duration counts from here.
    var runBegan: Int64

    var pushes = LoadResult.PushCounts()
    var activities = LoadResult.ActivityCounts()
    var delivery: LoadResult.DeliveryCounts?
    var broadcast: LoadResult.BroadcastCounts?
    var platforms: LoadResult.PlatformResults?
    var latency: Histogram<UInt64> = EncodedHistogram.emptyLatencyHistogram()
    var series = LoadResult.Series()

    init(configuration: LoadConfiguration, setupStart: Int64, threads: Int, latencyFrom: LatencyOrigin) {
        self.configuration = configuration
        self.setupStart = setupStart
        self.threads = threads
        self.latencyFrom = latencyFrom
        self.startedAt = UTCTime.format(WallClock().now())
        self.runBegan = setupStart
        series.intervalMillis = configuration.interval.millis
    }

    /// Marks the run's clock start (microseconds) and takes the wall time as ``startedAt``.
    mutating func began(at micros: Int64) {
        runBegan = micros
        startedAt = UTCTime.format(WallClock().now())
    }

    /// Sets the latency series from a recorder's percentiles per interval.
    mutating func setLatencySeries(_ recorder: LatencySamples) {
        series.latencyP50 = recorder.p50
        series.latencyP90 = recorder.p90
        series.latencyP99 = recorder.p99
        series.latencyMax = recorder.max
    }

    /// The result of a run that ended at `end` (microseconds).
    func build(endedAt end: Int64) -> LoadResult {
        LoadResult(
            startedAt: startedAt, durationMillis: max(1, (end - runBegan) / 1000), config: config(),
            pushes: pushes, activities: activities, delivery: delivery, broadcast: broadcast, device: nil,
            platforms: platforms, latency: LoadResult.LatencySummary(latency), series: series,
            resources: .init(
                peakRSSBytes: ResourceUsage.peakResidentBytes(), cpuMillis: ResourceUsage.cpuMillis(),
                setupMillis: max(0, (runBegan - setupStart) / 1000)))
    }

    /// The configuration as the result states it, with this run's activities per scenario.
    private func config() -> LoadResult.Config {
        let copies = Array(configuration.playedCopies)
        let counted: [Int]
        if let broadcast = configuration.broadcast {
            // Subscribers of this run's channels, by the scenario their channel plays.
            let perChannel = broadcast.subscriberCounts(copies: 0..<configuration.activities)
            var byEntry = Array(repeating: 0, count: configuration.mix.entries.count)
            for channel in copies {
                byEntry[configuration.mix.assignment(ofCopy: channel).entry] += perChannel[channel]
            }
            counted = byEntry
        } else {
            counted = configuration.mix.counts(copies: copies)
        }
        let scenarios = configuration.mix.entries.enumerated().map { index, entry in
            LoadResult.Config.ScenarioEntry(
                file: entry.scenario.file, name: entry.scenario.name, weight: entry.weight, activities: counted[index])
        }
        var config = LoadResult.Config(
            scenarios: scenarios, activities: configuration.activities, shard: configuration.shard.description,
            shardActivities: counted.reduce(0, +), arrivals: "all-at-once", seed: configuration.seed, clock: "virtual",
            speed: 1,
            target: configuration.target.name, threads: threads, latencyFrom: latencyFrom.rawValue)
        switch configuration.arrivals {
        case .allAtOnce: break
        case .ramp(let duration):
            config.arrivals = "ramp"
            config.rampMillis = duration
        case .rate(let perSecond):
            config.arrivals = "rate"
            config.ratePerSecond = perSecond
        }
        if case .real(let speed) = configuration.clock {
            config.clock = "real"
            config.speed = speed
        }
        if case .endpoint(let endpoint, _, _) = configuration.target {
            config.transport = endpoint.tls ? "tls" : "h2c"
            config.maxInFlight = configuration.maxInFlight
            config.connections = configuration.connections
        }
        config.channels = configuration.broadcast?.channels
        if configuration.platforms.hasAndroid {
            config.androidShare = configuration.platforms.androidShare
            config.fcmTarget = configuration.fcm?.name
        }
        config.timeLimitMillis = configuration.timeLimit?.millis
        return config
    }
}
