import Foundation
import Histogram
import Liveline
import Testing
@testable import LivelineLoad

@Suite("Histograms and results merge")
struct MergeTests {
    @Test("an encoded histogram decodes to the same counts and percentiles")
    func roundTrip() throws {
        var histogram = EncodedHistogram.emptyLatencyHistogram()
        var random = SeededRandom.mix(1)
        for _ in 0..<10_000 {
            random = SeededRandom.mix(random)
            histogram.record(random % 5_000_000)
        }
        let decoded = try EncodedHistogram(histogram).decoded()
        #expect(decoded.totalCount == histogram.totalCount)
        for p in [50.0, 90, 99, 99.9] {
            #expect(decoded.valueAtPercentile(p) == histogram.valueAtPercentile(p))
        }
        // The maximum comes back as the top of its bucket: equivalent at 3 significant digits.
        #expect(histogram.valuesAreEquivalent(decoded.max, histogram.max))
        // Through JSON too.
        let data = try JSONEncoder().encode(EncodedHistogram(histogram))
        let back = try JSONDecoder().decode(EncodedHistogram.self, from: data).decoded()
        #expect(back.valueAtPercentile(99) == histogram.valueAtPercentile(99))
    }

    @Test("merging two results adds counts and gives the histogram of all their latencies")
    func mergeResults() throws {
        let fast = (0..<900).map { UInt64(500 + $0) }
        let slow = (0..<100).map { UInt64(200_000 + 1000 * $0) }
        var a = ThresholdTests.result(latencies: fast, submitted: 900)
        var b = ThresholdTests.result(latencies: slow, submitted: 100, rejected: 3)
        a.series.sent = [100, 200]
        b.series.sent = [10, 20, 30]
        a.series.latencyP99 = [1000, nil]
        b.series.latencyP99 = [5000, 2000, 7]
        let merged = try ResultMerge.merge([a, b])
        #expect(merged.delivery?.submitted == 1000)
        #expect(merged.delivery?.rejected == 3)
        #expect(merged.pushes.produced == 1000)
        #expect(merged.latency.count == 1000)
        var all = EncodedHistogram.emptyLatencyHistogram()
        for value in fast + slow { all.record(value) }
        #expect(merged.latency.p50Micros == all.valueAtPercentile(50))
        #expect(merged.latency.p99Micros == all.valueAtPercentile(99))
        #expect(merged.latency.maxMicros == all.max)
        #expect(merged.series.sent == [110, 220, 30])
        #expect(merged.series.latencyP99 == [5000, 2000, 7])
        #expect(merged.mergedRuns == 2)
        #expect(merged.config.shardActivities == 20)
    }

    @Test("a result survives JSON, and bad files are refused with a reason")
    func json() throws {
        let result = ThresholdTests.result(latencies: [1, 2, 3, 4000])
        let data = try JSONReport.encode(result)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"format\" : \"liveline-load-result\""))
        #expect(text.contains("\"p99-us\""))
        #expect(try JSONReport.decode(data, name: "r.json") == result)
        #expect(throws: LoadError.self) { try JSONReport.decode(Data("{}".utf8), name: "x.json") }
        #expect(throws: LoadError.self) { try JSONReport.decode(Data("[1]".utf8), name: "x.json") }
        let future = text.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 99")
        #expect(throws: LoadError.self) { try JSONReport.decode(Data(future.utf8), name: "x.json") }
    }

    @Test("shards of a discard test add up to the whole test")
    func shardsAddUp() async throws {
        let scenario = try Fixtures.scenario(Fixtures.shortYAML)
        func run(_ shard: Shard) async throws -> LoadResult {
            var configuration = LoadConfiguration(mix: try ScenarioMix([(scenario, 1)]), activities: 90)
            configuration.start = Fixtures.start
            configuration.shard = shard
            configuration.threads = 2
            return try await LoadRunner(configuration: configuration).run()
        }
        let whole = try await run(.whole)
        let parts = [
            try await run(Shard(index: 1, count: 3)), try await run(Shard(index: 2, count: 3)),
            try await run(Shard(index: 3, count: 3)),
        ]
        let merged = try ResultMerge.merge(parts)
        #expect(merged.pushes == whole.pushes)
        #expect(merged.activities.played == 90)
        #expect(merged.config.scenarios.first?.activities == 90)
    }
}
