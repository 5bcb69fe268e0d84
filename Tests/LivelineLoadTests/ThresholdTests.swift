import Foundation
import Histogram
import Liveline
import Testing
@testable import LivelineLoad

@Suite("Thresholds and exit status")
struct ThresholdTests {
    @Test("parsing the documented forms")
    func parsing() throws {
        let p99 = try Threshold(parsing: "p99<250ms")
        #expect(p99.metric == .percentile(99) && p99.comparison == .less && p99.limit == 250_000)
        let p999 = try Threshold(parsing: "p99.9 <= 1.5s")
        #expect(p999.metric == .percentile(99.9) && p999.comparison == .lessOrEqual && p999.limit == 1_500_000)
        let errors = try Threshold(parsing: "errors<0.1%")
        #expect(errors.metric == .errors && errors.unit == .percent && abs(errors.limit - 0.001) < 1e-12)
        let rate = try Threshold(parsing: "rate>1000/s")
        #expect(rate.metric == .rate && rate.comparison == .greater && rate.limit == 1000)
        let wnr = try Threshold(parsing: "would-not-render=0")
        #expect(wnr.metric == .wouldNotRender && wnr.comparison == .equal && wnr.unit == .count)
        #expect(try Threshold(parsing: "max<800us").limit == 800)
        #expect(try Threshold(parsing: "lost==0").comparison == .equal)
    }

    @Test(
        "mistakes say what was expected",
        arguments: ["p99", "p99<fast", "latency<3ms", "errors<lots", "rate>many", "<3ms", "p0<1ms"])
    func mistakes(text: String) {
        #expect(throws: LoadError.self) { try Threshold(parsing: text) }
    }

    static func result(
        latencies: [UInt64], submitted: Int = 1000, rejected: Int = 0, lost: Int = 0, wouldNotRender: Int? = nil
    ) -> LoadResult {
        var histogram = EncodedHistogram.emptyLatencyHistogram()
        for value in latencies { histogram.record(value) }
        var delivery = LoadResult.DeliveryCounts()
        delivery.submitted = submitted
        delivery.delivered = submitted - rejected - lost
        delivery.rejected = rejected
        delivery.lost = lost
        var pushes = LoadResult.PushCounts()
        pushes.produced = submitted
        let config = LoadResult.Config(
            scenarios: [], activities: 10, shard: "1/1", shardActivities: 10, arrivals: "all-at-once", clock: "virtual",
            speed: 1,
            target: "mock", threads: 1, latencyFrom: "release-time")
        return LoadResult(
            startedAt: "2026-11-23T20:00:00Z", durationMillis: 2000, config: config, pushes: pushes,
            activities: .init(),
            delivery: delivery, broadcast: nil,
            device: wouldNotRender.map { .init(received: submitted, wouldNotRender: $0) },
            latency: .init(histogram), series: .init(), resources: .init(peakRSSBytes: 0, cpuMillis: 0, setupMillis: 0))
    }

    @Test("checking against a result")
    func checking() throws {
        let result = Self.result(
            latencies: Array(repeating: 1000, count: 99) + [400_000], rejected: 2, wouldNotRender: 0)
        #expect(try Threshold(parsing: "p50<2ms").check(result).passed)
        #expect(try Threshold(parsing: "p99<2ms").check(result).passed)
        #expect(!(try Threshold(parsing: "max<250ms").check(result).passed))
        #expect(try Threshold(parsing: "errors<0.5%").check(result).passed)
        #expect(!(try Threshold(parsing: "errors<0.1%").check(result).passed))
        #expect(!(try Threshold(parsing: "errors=0").check(result).passed))
        #expect(try Threshold(parsing: "rate>400/s").check(result).passed) // 998 delivered in 2 s
        #expect(!(try Threshold(parsing: "rate>500/s").check(result).passed))
        #expect(try Threshold(parsing: "would-not-render=0").check(result).passed)
        // A percentile the summary does not keep is read from the histogram, in microseconds.
        let p95 = try Threshold(parsing: "p95<1us").check(result)
        #expect(!p95.passed && p95.actual.map { $0 >= 999 && $0 <= 1001 } == true, "\(p95)")
        // Not measured fails, and says so.
        let noDevice = Self.result(latencies: [1])
        let outcome = try Threshold(parsing: "would-not-render=0").check(noDevice)
        #expect(!outcome.passed && outcome.shown == "not measured in this run")
    }

    @Test("exit status: 0 passed, 99 a threshold failed, 2 pushes lost")
    func exitStatus() throws {
        var result = Self.result(latencies: [1000])
        #expect(LoadExitStatus.of(result) == .success)
        result.thresholds = [try Threshold(parsing: "p99<250ms").check(result)]
        #expect(LoadExitStatus.of(result) == .success)
        result.thresholds.append(try Threshold(parsing: "p50<1us").check(result))
        #expect(LoadExitStatus.of(result) == .thresholdFailed)
        #expect(LoadExitStatus.thresholdFailed.rawValue == 99)
        let lost = Self.result(latencies: [1000], lost: 1)
        #expect(LoadExitStatus.of(lost) == .runFailed)
    }

    @Test("a platform before the metric measures that platform alone")
    func platformScope() throws {
        #expect(try Threshold(parsing: "android:p99<500ms").platform == .android)
        #expect(try Threshold(parsing: "ios: errors = 0").platform == .ios)
        #expect(try Threshold(parsing: "p99<500ms").platform == nil)
        #expect(throws: LoadError.self) { try Threshold(parsing: "windows:p99<1s") }

        var result = Self.result(latencies: [1000], submitted: 300, rejected: 3)
        var ios = LoadResult.PlatformResult(latency: .init(EncodedHistogram.emptyLatencyHistogram()))
        var android = ios
        var fast = EncodedHistogram.emptyLatencyHistogram()
        for _ in 0..<100 { fast.record(2_000) }
        var slow = EncodedHistogram.emptyLatencyHistogram()
        for _ in 0..<100 { slow.record(900_000) }
        ios.latency = .init(fast)
        android.latency = .init(slow)
        ios.activities = 10
        ios.delivery.submitted = 100
        ios.delivery.delivered = 100
        android.delivery.submitted = 200
        android.delivery.delivered = 197
        android.delivery.rejected = 3
        android.phones = ["posted": 10, "updated": 180, "wouldNotRender": 7]
        result.platforms = .init(ios: ios, android: android)
        #expect(try Threshold(parsing: "ios:p99<10ms").check(result).passed)
        let slowAndroid = try Threshold(parsing: "android:p99<10ms").check(result)
        #expect(
            !slowAndroid.passed && slowAndroid.actual.map { $0 >= 899_000 && $0 <= 901_000 } == true, "\(slowAndroid)")
        #expect(try Threshold(parsing: "android:p95<1s").check(result).passed)
        #expect(try Threshold(parsing: "ios:errors=0").check(result).passed)
        #expect(try Threshold(parsing: "android:rejected=3").check(result).passed)
        #expect(try Threshold(parsing: "android:rate>90/s").check(result).passed) // 197 in 2 s
        #expect(try Threshold(parsing: "android:would-not-render=7").check(result).passed)
        #expect(try Threshold(parsing: "ios:exhausted=0").check(result).passed)
        // Android has no budget: not measured, and said so.
        #expect(try Threshold(parsing: "android:exhausted=0").check(result).shown == "not measured in this run")
        // Without platforms in the result, a platform's metric was not measured.
        result.platforms = nil
        #expect(!(try Threshold(parsing: "ios:errors=0").check(result).passed))
    }
}
