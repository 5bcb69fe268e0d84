import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import Liveline
import Testing
@testable import LivelineLoad

@Suite("Reports")
struct ReportTests {
    static func sampleResult() -> LoadResult {
        var latencies: [UInt64] = []
        for i in 0..<2000 { latencies.append(UInt64(300 + (i * 37) % 4000)) }
        var result = ThresholdTests.result(latencies: latencies, submitted: 2000, rejected: 4, wouldNotRender: 1)
        result.delivery?.reasons = ["BadDeviceToken": 3, "PayloadTooLarge": 1]
        result.delivery?.statuses = ["200": 1996, "400": 3, "413": 1]
        result.pushes.highPriority = 200
        result.pushes.lowPriority = 1800
        result.pushes.coalesced = 40
        result.pushes.heartbeats = 90
        result.series.sent = [500, 800, 700]
        result.series.completed = [450, 820, 730]
        result.series.errors = [0, 3, 1]
        result.series.latencyP50 = [800, 900, 1000]
        result.series.latencyP90 = [2000, 2100, 2500]
        result.series.latencyP99 = [3000, 3900, nil]
        result.series.latencyMax = [4200, 4300, 4100]
        result.thresholds = [try! Threshold(parsing: "p99<250ms").check(result)]
        return result
    }

    /// Every `<svg>…</svg>` element of a page.
    static func svgElements(_ html: String) -> [String] {
        var out: [String] = []
        var rest = html[...]
        while let open = rest.range(of: "<svg"),
            let close = rest.range(of: "</svg>", range: open.upperBound..<rest.endIndex)
        {
            out.append(String(rest[open.lowerBound..<close.upperBound]))
            rest = rest[close.upperBound...]
        }
        return out
    }

    final class SVGCollector: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        var title = ""
        var inTitle = false

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements[name, default: 0] += 1
            inTitle = name == "title"
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { if inTitle { title += string } }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            inTitle = false
        }
    }

    @Test("the HTML report holds its charts as well-formed SVG, and fetches nothing")
    func htmlCharts() throws {
        let html = HTMLReport().render(Self.sampleResult())
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        let charts = Self.svgElements(html)
        var titles: [String: [String: Int]] = [:]
        for svg in charts {
            let parser = XMLParser(data: Data(svg.utf8))
            let collector = SVGCollector()
            parser.delegate = collector
            #expect(parser.parse(), "an SVG chart is not well-formed XML: \(svg.prefix(200))")
            titles[collector.title] = collector.elements
        }
        let throughput = try #require(titles["Throughput over time, pushes per second"])
        #expect(throughput["polyline", default: 0] >= 2)
        let latency = try #require(titles["Latency percentiles over time"])
        #expect(latency["polyline", default: 0] >= 4)
        let priority = try #require(titles["Pushes by priority and kind"])
        #expect(priority["rect", default: 0] >= 4)
        let errors = try #require(titles["Errors by reason"])
        #expect(errors["rect", default: 0] >= 2)
        #expect(titles["Latency distribution"] != nil)
        // Self-contained: no scripts, no external resources.
        for banned in ["<script", "src=", "<link", "@import", "url(", "https://"] {
            #expect(!html.contains(banned), "the report contains \(banned)")
        }
        #expect(html.contains("BadDeviceToken"))
        #expect(html.contains("✓ All thresholds passed") || html.contains("Thresholds failed"))
    }

    @Test("the text summary shows the percentiles and the accounting")
    func text() {
        let text = TextReport().render(Self.sampleResult())
        for part in [
            "p50", "p90", "p99", "p99.9", "max", "2,000 submitted", "0 lost", "BadDeviceToken ×3", "✓ p99<250ms",
        ] {
            #expect(text.contains(part), "missing \(part)")
        }
    }

    @Test("charts downsample long runs and show empty data plainly")
    func charts() {
        let values: [Double?] = (0..<10_000).map { Double($0 % 100) }
        let (small, factor) = SVGChart.downsample(values, limit: 300, combine: { $0.max() ?? 0 })
        #expect(small.count <= 300 && factor == 34)
        let empty = SVGChart.lines([], title: "t", step: 1) { "\($0)" }
        #expect(empty.contains("no data"))
        #expect(SVGChart.escape("<a&b>") == "&lt;a&amp;b&gt;")
    }

    @Test("the progress line shows rate, in flight, errors and ETA")
    func progress() {
        var line = ProgressLine()
        var progress = LoadProgress()
        progress.networked = true
        progress.elapsedMillis = 1000
        progress.completed = 5000
        progress.submitted = 5200
        progress.inFlight = 200
        progress.errors = 3
        progress.fraction = 0.25
        _ = line.render(progress)
        progress.elapsedMillis = 2000
        progress.completed = 10_000
        let text = line.render(progress)
        #expect(
            text.contains("25%") && text.contains("200 in flight") && text.contains("3 errors") && text.contains("ETA"))
        #expect(text.contains("5k/s"))
        // With Android in the run, each platform's answers and errors.
        progress.platforms = [
            .init(platform: .ios, completed: 6_000, errors: 0), .init(platform: .android, completed: 4_000, errors: 3),
        ]
        let mixed = line.render(progress, width: 200)
        #expect(mixed.contains("iOS 6k · Android 4k (3 errors)"), "\(mixed)")
    }
}

@Suite("SVG scales")
struct SVGScaleTests {
    @Test("a logarithmic chart of millisecond latencies is labelled in milliseconds")
    func logScale() {
        let line = SVGChart.Line(name: "p50", color: "#000", values: [129_599, 158_847, nil, 121_663])
        let svg = SVGChart.lines([line], title: "t", step: 1, logarithmic: true) {
            LatencyText.format(micros: UInt64($0))
        }
        #expect(svg.contains(">100ms<") && svg.contains(">1s<"), "\(svg)")
        #expect(!svg.contains(">1µs<"))
    }
}

extension SVGScaleTests {
    @Test("the report's latency chart uses the series' own values")
    func reportLatencyScale() throws {
        let html = HTMLReport().render(ReportTests.sampleResult())
        let svg = try #require(
            ReportTests.svgElements(html).first { $0.contains("<title>Latency percentiles over time</title>") })
        #expect(svg.contains(">1ms<") && !svg.contains(">1µs<"), "\(svg)")
    }
}
