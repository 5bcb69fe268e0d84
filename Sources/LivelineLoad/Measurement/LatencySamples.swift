import Histogram
import Liveline

/// Latencies of one run, in microseconds: one HdrHistogram over the whole run and the
/// percentiles of each interval (a second by default), for "latency over time".
///
/// Interval percentiles are worked out when the interval closes and kept as four numbers, so a
/// long run costs a few bytes a second, not a histogram a second. A value; the owner decides
/// how it is shared (``DeliveryMeasurements`` keeps one behind its lock).
public struct LatencySamples: Sendable {
    public private(set) var histogram = EncodedHistogram.emptyLatencyHistogram()
    private var interval = EncodedHistogram.emptyLatencyHistogram()
    private var intervalIndex = 0
    public private(set) var p50: [UInt64?] = []
    public private(set) var p90: [UInt64?] = []
    public private(set) var p99: [UInt64?] = []
    public private(set) var max: [UInt64?] = []

    public init() {}

    /// Records a latency that ended in interval `index` (intervals since the run's start).
    public mutating func record(_ micros: Int64, interval index: Int) {
        let value = UInt64(Swift.max(0, micros))
        histogram.record(value)
        if index != intervalIndex { close(upTo: index) }
        interval.record(value)
    }

    /// Closes every interval before `index`; empty ones get nil.
    public mutating func close(upTo index: Int) {
        guard index > intervalIndex else { return }
        appendCurrent()
        for _ in (intervalIndex + 1)..<index {
            p50.append(nil); p90.append(nil); p99.append(nil); max.append(nil)
        }
        intervalIndex = index
    }

    /// Closes the current interval too: call once at the end.
    public mutating func finish() {
        appendCurrent()
        intervalIndex += 1
    }

    private mutating func appendCurrent() {
        // Pad to the current interval first (nothing may have been recorded yet).
        while p50.count < intervalIndex { p50.append(nil); p90.append(nil); p99.append(nil); max.append(nil) }
        if interval.totalCount == 0 {
            p50.append(nil); p90.append(nil); p99.append(nil); max.append(nil)
        } else {
            p50.append(interval.valueAtPercentile(50))
            p90.append(interval.valueAtPercentile(90))
            p99.append(interval.valueAtPercentile(99))
            max.append(interval.max)
            interval.reset()
        }
    }
}
