import Histogram
import Liveline

/// Adds up load results from several machines (`--shard I/N`) or runs into one.
///
/// Counts and histograms add exactly: the merged percentiles are those of every latency of
/// every run. Time series are aligned by interval from each run's start and summed; latency
/// percentiles over time cannot be added, so each merged interval shows the highest of the
/// runs' values (a conservative reading, said in the report). The duration is the longest run's
/// (shards run side by side), so the merged throughput is the combined rate.
public enum ResultMerge {
    public static func merge(_ results: [LoadResult]) throws(LoadError) -> LoadResult {
        guard var merged = results.first else {
            throw .incompatibleResults("nothing to merge: give one or more result files")
        }
        guard results.count > 1 else { return merged }
        var histogram = try merged.latency.histogram.decoded()
        for other in results.dropFirst() {
            try add(try other.latency.histogram.decoded(), to: &histogram)
            merged.startedAt = min(merged.startedAt, other.startedAt)
            merged.durationMillis = max(merged.durationMillis, other.durationMillis)
            merged.config = mergeConfig(merged.config, other.config)
            merged.pushes.add(other.pushes)
            merged.activities = mergeActivities(merged.activities, other.activities)
            merged.delivery = mergeOptional(merged.delivery, other.delivery) { a, b in
                var c = a
                c.add(b)
                return c
            }
            merged.platforms = try mergeOptional(merged.platforms, other.platforms) { a, b throws(LoadError) in
                var c = a
                for platform in Platform.allCases { c[platform] = try mergePlatform(a[platform], b[platform]) }
                return c
            }
            merged.broadcast = mergeOptional(merged.broadcast, other.broadcast) { a, b in
                var c = a
                c.channels += b.channels
                c.subscribers += b.subscribers
                c.pushesSent += b.pushesSent
                c.activityUpdates += b.activityUpdates
                return c
            }
            merged.device = mergeOptional(merged.device, other.device, +)
            merged.series = mergeSeries(merged.series, other.series)
            merged.resources.peakRSSBytes = max(merged.resources.peakRSSBytes, other.resources.peakRSSBytes)
            merged.resources.cpuMillis += other.resources.cpuMillis
            merged.resources.setupMillis = max(merged.resources.setupMillis, other.resources.setupMillis)
            merged.mergedRuns += other.mergedRuns
        }
        merged.latency = LoadResult.LatencySummary(histogram)
        merged.thresholds = []
        return merged
    }

    private static func mergeOptional<T, E: Error>(_ a: T?, _ b: T?, _ combine: (T, T) throws(E) -> T) throws(E) -> T? {
        switch (a, b) {
        case (nil, nil): nil
        case (let x?, nil), (nil, let x?): x
        case (let x?, let y?): try combine(x, y)
        }
    }

    /// Two runs' results of one platform: counts added, histograms added.
    private static func mergePlatform(
        _ a: LoadResult.PlatformResult, _ b: LoadResult.PlatformResult
    ) throws(LoadError) -> LoadResult.PlatformResult {
        var c = a
        c.activities += b.activities
        c.produced += b.produced
        c.highPriority += b.highPriority
        c.normalPriority += b.normalPriority
        c.bytes += b.bytes
        c.largest = max(a.largest, b.largest)
        c.downgraded += b.downgraded
        c.deferred += b.deferred
        c.paced += b.paced
        c.merged += b.merged
        c.withoutCollapseKey += b.withoutCollapseKey
        c.delivery.add(b.delivery)
        c.latency = LoadResult.LatencySummary(try addHistograms(a.latency, b.latency))
        c.phones = mergeOptional(a.phones, b.phones) { $0.merging($1, uniquingKeysWith: +) }
        return c
    }

    private static func mergeConfig(_ a: LoadResult.Config, _ b: LoadResult.Config) -> LoadResult.Config {
        var config = a
        for entry in b.scenarios {
            if let index = config.scenarios.firstIndex(where: { $0.file == entry.file }) {
                config.scenarios[index].activities += entry.activities
            } else {
                config.scenarios.append(entry)
            }
        }
        config.activities = max(a.activities, b.activities)
        config.shardActivities = a.shardActivities + b.shardActivities
        config.shard = a.shard == b.shard ? a.shard : "merged"
        config.threads = max(a.threads, b.threads)
        if a.target != b.target { config.target = "\(a.target), \(b.target)" }
        if a.latencyFrom != b.latencyFrom { config.latencyFrom = "mixed" }
        config.channels = mergeOptional(a.channels, b.channels, +)
        if a.fcmTarget != b.fcmTarget {
            config.fcmTarget = [a.fcmTarget, b.fcmTarget].compactMap { $0 }.joined(separator: ", ")
        }
        if a.androidShare != b.androidShare { config.androidShare = nil }
        return config
    }

    private static func mergeActivities(
        _ a: LoadResult.ActivityCounts, _ b: LoadResult.ActivityCounts
    ) -> LoadResult.ActivityCounts {
        var c = a
        c.played += b.played
        c.exhaustedBudget += b.exhaustedBudget
        c.stopped += b.stopped
        c.unfinished += b.unfinished
        c.stopReasons.merge(b.stopReasons, uniquingKeysWith: +)
        return c
    }

    private static func mergeSeries(_ a: LoadResult.Series, _ b: LoadResult.Series) -> LoadResult.Series {
        var c = a
        c.sent = TimeSeries.sum(a.sent, b.sent)
        c.completed = TimeSeries.sum(a.completed, b.completed)
        c.errors = TimeSeries.sum(a.errors, b.errors)
        c.latencyP50 = highest(a.latencyP50, b.latencyP50)
        c.latencyP90 = highest(a.latencyP90, b.latencyP90)
        c.latencyP99 = highest(a.latencyP99, b.latencyP99)
        c.latencyMax = highest(a.latencyMax, b.latencyMax)
        return c
    }

    private static func highest(_ a: [UInt64?], _ b: [UInt64?]) -> [UInt64?] {
        (0..<max(a.count, b.count)).map { i in
            let x = a.indices.contains(i) ? a[i] : nil
            let y = b.indices.contains(i) ? b[i] : nil
            switch (x, y) {
            case (nil, nil): return nil
            case (let v?, nil), (nil, let v?): return v
            case (let v?, let w?): return max(v, w)
            }
        }
    }

    /// `other` added to `histogram`, when their layouts allow.
    private static func add(_ other: Histogram<UInt64>, to histogram: inout Histogram<UInt64>) throws(LoadError) {
        guard other.numberOfSignificantValueDigits == histogram.numberOfSignificantValueDigits,
            other.lowestDiscernibleValue == histogram.lowestDiscernibleValue
        else {
            throw .incompatibleResults(
                "the histograms have different layouts (significant digits or lowest value) and cannot be added")
        }
        histogram.add(other)
    }

    /// The histogram of both summaries' latencies.
    private static func addHistograms(
        _ a: LoadResult.LatencySummary, _ b: LoadResult.LatencySummary
    ) throws(LoadError) -> Histogram<UInt64> {
        var histogram = try a.histogram.decoded()
        try add(try b.histogram.decoded(), to: &histogram)
        return histogram
    }
}
