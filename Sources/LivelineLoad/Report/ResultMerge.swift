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
            let otherHistogram = try other.latency.histogram.decoded()
            guard otherHistogram.numberOfSignificantValueDigits == histogram.numberOfSignificantValueDigits,
                otherHistogram.lowestDiscernibleValue == histogram.lowestDiscernibleValue
            else {
                throw .incompatibleResults(
                    "the histograms have different layouts (significant digits or lowest value) and cannot be added")
            }
            histogram.add(otherHistogram)
            merged.startedAt = min(merged.startedAt, other.startedAt)
            merged.durationMillis = max(merged.durationMillis, other.durationMillis)
            merged.config = mergeConfig(merged.config, other.config)
            merged.pushes.add(other.pushes)
            merged.activities = mergeActivities(merged.activities, other.activities)
            merged.delivery = mergeOptional(merged.delivery, other.delivery, mergeDelivery)
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

    private static func mergeOptional<T>(_ a: T?, _ b: T?, _ combine: (T, T) -> T) -> T? {
        switch (a, b) {
        case (nil, nil): nil
        case (let x?, nil), (nil, let x?): x
        case (let x?, let y?): combine(x, y)
        }
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

    private static func mergeDelivery(
        _ a: LoadResult.DeliveryCounts, _ b: LoadResult.DeliveryCounts
    ) -> LoadResult.DeliveryCounts {
        var c = a
        c.submitted += b.submitted
        c.delivered += b.delivered
        c.superseded += b.superseded
        c.rejected += b.rejected
        c.gaveUp += b.gaveUp
        c.droppedAfterStop += b.droppedAfterStop
        c.lost += b.lost
        c.retries += b.retries
        c.retryFailures.merge(b.retryFailures, uniquingKeysWith: +)
        c.statuses.merge(b.statuses, uniquingKeysWith: +)
        c.reasons.merge(b.reasons, uniquingKeysWith: +)
        c.configurationError = a.configurationError ?? b.configurationError
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
}
