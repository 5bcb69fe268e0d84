import Foundation

/// Small, dependency-free SVG charts for the HTML report: line charts over time and
/// horizontal bar charts. Output is a self-contained `<svg>` element (no scripts, no fonts
/// to fetch); colours and text styles come from the report's inline CSS classes.
public enum SVGChart {
    /// One line of a line chart.
    public struct Line: Sendable {
        public var name: String
        /// A CSS colour.
        public var color: String
        /// One value per x step; nil leaves a gap.
        public var values: [Double?]
        public var dashed: Bool
        /// Fill the area under the line (lightly).
        public var area: Bool

        public init(name: String, color: String, values: [Double?], dashed: Bool = false, area: Bool = false) {
            self.name = name
            self.color = color
            self.values = values
            self.dashed = dashed
            self.area = area
        }
    }

    /// One bar of a bar chart.
    public struct Bar: Sendable {
        public var label: String
        public var value: Double
        public var color: String
        /// Shown after the bar; the value when nil.
        public var note: String?

        public init(label: String, value: Double, color: String, note: String? = nil) {
            self.label = label
            self.value = value
            self.color = color
            self.note = note
        }
    }

    /// A line chart. `step` is the x distance between values, in seconds; `format` labels the
    /// y axis; `logarithmic` uses a log scale (for latencies spanning decades).
    public static func lines(
        _ lines: [Line], title: String, step: Double, width: Int = 560, height: Int = 240,
        logarithmic: Bool = false, format: (Double) -> String
    ) -> String {
        let left = 58.0, right = 14.0, top = 30.0, bottom = 30.0
        let plotW = Double(width) - left - right, plotH = Double(height) - top - bottom
        let count = lines.map(\.values.count).max() ?? 0
        var svg = header(width: width, height: height, title: title)
        let present = lines.flatMap { $0.values.compactMap { $0 } }.filter { !logarithmic || $0 > 0 }
        guard count > 0, let maxValue = present.max() else {
            svg +=
                "<text x=\"\(width / 2)\" y=\"\(height / 2)\" class=\"empty\" text-anchor=\"middle\">no data</text></svg>"
            return svg
        }
        // The y scale.
        let minValue = logarithmic ? max(1, present.min() ?? 1) : 0
        let yTicks: [Double]
        let yLow: Double, yHigh: Double
        if logarithmic {
            let lowDecade = floor(log10(minValue)), highDecade = max(lowDecade + 1, ceil(log10(maxValue * 1.05)))
            yLow = pow(10, lowDecade)
            yHigh = pow(10, highDecade)
            var ticks: [Double] = []
            var decade = lowDecade
            while decade <= highDecade {
                ticks.append(pow(10, decade))
                if highDecade - lowDecade <= 2, decade < highDecade { ticks.append(3 * pow(10, decade)) }
                decade += 1
            }
            yTicks = ticks
        } else {
            let nice = niceStep(maxValue / 4)
            yLow = 0
            yHigh = max(nice, ceil(maxValue * 1.05 / nice) * nice)
            yTicks = stride(from: 0, through: yHigh + nice / 2, by: nice).map { $0 }
        }
        func y(_ value: Double) -> Double {
            if logarithmic {
                let v = max(value, yLow)
                return top + plotH - (log10(v) - log10(yLow)) / (log10(yHigh) - log10(yLow)) * plotH
            }
            return top + plotH - (value - yLow) / (yHigh - yLow) * plotH
        }
        let xSpan = max(1, Double(count - 1))
        func x(_ index: Int) -> Double { left + Double(index) / xSpan * plotW }

        for tick in yTicks where tick <= yHigh * 1.0001 {
            let ty = y(tick)
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(ty))\" x2=\"\(f(left + plotW))\" y2=\"\(f(ty))\" class=\"grid\"/>"
            svg +=
                "<text x=\"\(f(left - 6))\" y=\"\(f(ty + 4))\" class=\"tick\" text-anchor=\"end\">\(escape(format(tick)))</text>"
        }
        // The x axis: elapsed time.
        let totalSeconds = Double(count - 1) * step
        let xStep = timeStep(max(totalSeconds, step) / 5)
        var t = 0.0
        while t <= totalSeconds + 1e-9 {
            let tx = left + (totalSeconds == 0 ? 0 : t / totalSeconds * plotW)
            svg +=
                "<line x1=\"\(f(tx))\" y1=\"\(f(top + plotH))\" x2=\"\(f(tx))\" y2=\"\(f(top + plotH + 4))\" class=\"axis\"/>"
            svg +=
                "<text x=\"\(f(tx))\" y=\"\(f(top + plotH + 18))\" class=\"tick\" text-anchor=\"middle\">\(escape(seconds(t)))</text>"
            t += xStep
        }
        svg +=
            "<line x1=\"\(f(left))\" y1=\"\(f(top + plotH))\" x2=\"\(f(left + plotW))\" y2=\"\(f(top + plotH))\" class=\"axis\"/>"

        for line in lines {
            var segments: [[(Double, Double)]] = [[]]
            for (i, value) in line.values.enumerated() {
                if let value, !logarithmic || value > 0 {
                    segments[segments.count - 1].append((x(i), y(value)))
                } else if !(segments.last?.isEmpty ?? true) {
                    segments.append([])
                }
            }
            for segment in segments where !segment.isEmpty {
                let points = segment.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
                if line.area, segment.count > 1 {
                    let base = f(top + plotH)
                    svg +=
                        "<polygon points=\"\(f(segment[0].0)),\(base) \(points) \(f(segment[segment.count - 1].0)),\(base)\" fill=\"\(line.color)\" fill-opacity=\"0.12\" stroke=\"none\"/>"
                }
                if segment.count == 1 {
                    svg +=
                        "<circle cx=\"\(f(segment[0].0))\" cy=\"\(f(segment[0].1))\" r=\"2.5\" fill=\"\(line.color)\"/>"
                } else {
                    svg +=
                        "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\" stroke-linejoin=\"round\"\(line.dashed ? " stroke-dasharray=\"5 4\"" : "")/>"
                }
            }
        }
        // The legend, top right.
        var lx = Double(width) - right
        for line in lines.reversed() {
            let textWidth = Double(line.name.count) * 6.6 + 8
            lx -= textWidth
            svg += "<text x=\"\(f(lx + 16))\" y=\"18\" class=\"legend\">\(escape(line.name))</text>"
            svg +=
                "<line x1=\"\(f(lx))\" y1=\"14\" x2=\"\(f(lx + 12))\" y2=\"14\" stroke=\"\(line.color)\" stroke-width=\"3\"\(line.dashed ? " stroke-dasharray=\"4 3\"" : "")/>"
            lx -= 20
        }
        return svg + "</svg>"
    }

    /// A horizontal bar chart; bars scale to the largest value.
    public static func bars(_ bars: [Bar], title: String, width: Int = 560, empty: String = "none") -> String {
        let rowHeight = 28.0, top = 34.0
        let height = Int(top + max(1, Double(bars.count)) * rowHeight + 10)
        var svg = header(width: width, height: height, title: title)
        guard let maxValue = bars.map(\.value).max(), maxValue > 0 else {
            svg +=
                "<text x=\"\(width / 2)\" y=\"\(Int(top) + 18)\" class=\"empty ok\" text-anchor=\"middle\">\(escape(empty))</text></svg>"
            return svg
        }
        let labelWidth = min(230.0, Double(bars.map(\.label.count).max() ?? 10) * 6.8 + 12)
        let noteWidth = 90.0
        let plotW = Double(width) - labelWidth - noteWidth - 8
        for (i, bar) in bars.enumerated() {
            let rowY = top + Double(i) * rowHeight
            let w = max(bar.value > 0 ? 2 : 0, bar.value / maxValue * plotW)
            svg +=
                "<text x=\"\(f(labelWidth - 8))\" y=\"\(f(rowY + 17))\" class=\"label\" text-anchor=\"end\">\(escape(truncate(bar.label, 34)))</text>"
            svg +=
                "<rect x=\"\(f(labelWidth))\" y=\"\(f(rowY + 5))\" width=\"\(f(w))\" height=\"\(f(rowHeight - 10))\" rx=\"3\" fill=\"\(bar.color)\"/>"
            svg +=
                "<text x=\"\(f(labelWidth + w + 6))\" y=\"\(f(rowY + 17))\" class=\"value\">\(escape(bar.note ?? NumberText.grouped(Int(bar.value))))</text>"
        }
        return svg + "</svg>"
    }

    // MARK: Helpers

    private static func header(width: Int, height: Int, title: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\" aria-label=\"\(escape(title))\"><title>\(escape(title))</title>"
    }

    /// 1, 2 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let power = pow(10, floor(log10(raw)))
        for multiple in [1.0, 2, 5, 10] where multiple * power >= raw { return multiple * power }
        return 10 * power
    }

    /// A step of round seconds, minutes or hours, at least `raw` seconds.
    static func timeStep(_ raw: Double) -> Double {
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600]
        return steps.first { $0 >= raw } ?? niceStep(raw / 3600) * 3600
    }

    static func seconds(_ value: Double) -> String {
        if value < 60 || value.truncatingRemainder(dividingBy: 60) != 0 {
            return LatencyText.trimmed(value, digits: 1) + "s"
        }
        if value < 3600 || value.truncatingRemainder(dividingBy: 3600) != 0 {
            return LatencyText.trimmed(value / 60, digits: 1) + "m"
        }
        return LatencyText.trimmed(value / 3600, digits: 1) + "h"
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    static func truncate(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// Escapes text for XML and HTML.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// Shrinks a series to at most `limit` points: each point summarizes a run of values by
    /// `combine` (the mean for rates, the maximum for latencies); nil when a run has none.
    public static func downsample(
        _ values: [Double?], limit: Int, combine: ([Double]) -> Double
    ) -> (values: [Double?], factor: Int) {
        guard values.count > limit, limit > 0 else { return (values, 1) }
        let factor = Int((Double(values.count) / Double(limit)).rounded(.up))
        var out: [Double?] = []
        var i = 0
        while i < values.count {
            let chunk = values[i..<min(values.count, i + factor)].compactMap { $0 }
            out.append(chunk.isEmpty ? nil : combine(chunk))
            i += factor
        }
        return (out, factor)
    }
}
