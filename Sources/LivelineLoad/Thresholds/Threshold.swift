import Liveline

/// A pass/fail condition on a load result: `--threshold 'p99<250ms'`.
///
/// Forms (spaces allowed around the operator):
/// - latency: `p50`, `p90`, `p99`, `p99.9` (any `pN`), `min`, `mean`, `max`, with a unit
///   `us`, `ms` or `s` (a bare number is milliseconds): `p99<250ms`, `max<=2s`;
/// - `errors`, `lost`, `rejected`, `superseded`, `would-not-render`, `exhausted`: a count
///   (`errors=0`) or a percentage of pushes (of activities for `exhausted`): `errors<0.1%`;
/// - `rate` (or `throughput`): pushes per second, `rate>1000/s`.
///
/// Operators: `<`, `<=`, `>`, `>=`, `=` (or `==`).
///
/// With Android in the run, `ios:` or `android:` before the metric measures that platform alone:
/// `android:p99<500ms`, `ios:errors=0`, `android:would-not-render=0` (the mock FCM's phones).
/// Without a platform, a metric is both platforms' together.
public struct Threshold: Sendable, Hashable, CustomStringConvertible {
    public enum Metric: Sendable, Hashable {
        case percentile(Double)
        case min, mean, max
        case errors, lost, rejected, superseded, wouldNotRender, exhausted
        case rate
    }

    public enum Comparison: String, Sendable, Hashable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", equal = "="

        func holds(_ lhs: Double, _ rhs: Double) -> Bool {
            switch self {
            case .less: lhs < rhs
            case .lessOrEqual: lhs <= rhs
            case .greater: lhs > rhs
            case .greaterOrEqual: lhs >= rhs
            case .equal: abs(lhs - rhs) < 1e-9
            }
        }
    }

    /// What the limit is measured in.
    public enum Unit: Sendable, Hashable {
        /// Latency, held in microseconds.
        case micros
        case count
        /// A fraction, written as a percentage.
        case percent
        case perSecond
    }

    public var text: String
    /// The platform measured alone (`android:p99<500ms`); nil for both together.
    public var platform: Platform?
    public var metric: Metric
    public var comparison: Comparison
    /// In microseconds for latency, a fraction (0–1) for percentages.
    public var limit: Double
    public var unit: Unit

    public var description: String { text }

    /// Parses a threshold, or says what is wrong and what it should look like.
    public init(parsing raw: String) throws(LoadError) {
        let text = raw.filter { !$0.isWhitespace }
        self.text = text
        let operators = ["<=", ">=", "==", "<", ">", "="]
        guard let (name, op, value) = Self.split(text, operators: operators) else {
            throw .invalidSetting(
                .threshold, value: "'\(raw)'",
                problem: "expected METRIC OP VALUE, such as p99<250ms, errors<0.1%, rate>1000/s or would-not-render=0")
        }
        comparison = Comparison(rawValue: op == "==" ? "=" : op) ?? .equal
        var lower = name.lowercased()
        for scope in Platform.allCases where lower.hasPrefix(scope.rawValue + ":") {
            platform = scope
            lower.removeFirst(scope.rawValue.count + 1)
        }
        switch lower {
        case "min": metric = .min
        case "mean", "avg": metric = .mean
        case "max": metric = .max
        case "errors", "error": metric = .errors
        case "lost": metric = .lost
        case "rejected": metric = .rejected
        case "superseded": metric = .superseded
        case "would-not-render", "wouldnotrender": metric = .wouldNotRender
        case "exhausted", "exhausted-budget": metric = .exhausted
        case "rate", "throughput": metric = .rate
        default:
            guard lower.hasPrefix("p"), let p = Double(lower.dropFirst()), p > 0, p <= 100 else {
                throw .invalidSetting(
                    .threshold, value: "'\(raw)'",
                    problem:
                        "unknown metric '\(name)'; use p50, p90, p99, p99.9, min, mean, max, errors, lost, rejected, superseded, would-not-render, exhausted or rate, with ios: or android: before it for one platform"
                )
            }
            metric = .percentile(p)
        }
        switch metric {
        case .percentile, .min, .mean, .max:
            unit = .micros
            limit = try Self.latency(value, raw: raw)
        case .rate:
            unit = .perSecond
            var number = Substring(value)
            if number.hasSuffix("/s") { number = number.dropLast(2) }
            guard let rate = Double(number), rate >= 0, rate.isFinite else {
                throw .invalidSetting(
                    .threshold, value: "'\(raw)'", problem: "expected pushes per second, such as rate>1000/s")
            }
            limit = rate
        default:
            if value.hasSuffix("%") {
                guard let percent = Double(value.dropLast()), percent >= 0, percent <= 100 else {
                    throw .invalidSetting(
                        .threshold, value: "'\(raw)'",
                        problem: "expected a percentage from 0 to 100, such as \(name)<0.1%")
                }
                unit = .percent
                limit = percent / 100
            } else {
                guard let count = Double(value), count >= 0, count == count.rounded() else {
                    throw .invalidSetting(
                        .threshold, value: "'\(raw)'",
                        problem: "expected a count (\(name)=0) or a percentage (\(name)<0.1%)")
                }
                unit = .count
                limit = count
            }
        }
    }

    private static func split(_ text: String, operators: [String]) -> (String, String, String)? {
        for op in operators {
            if let range = text.range(of: op) {
                let name = String(text[..<range.lowerBound])
                let value = String(text[range.upperBound...])
                guard !name.isEmpty, !value.isEmpty else { return nil }
                return (name, op, value)
            }
        }
        return nil
    }

    private static func latency(_ value: String, raw: String) throws(LoadError) -> Double {
        let units: [(String, Double)] = [("us", 1), ("µs", 1), ("ms", 1000), ("s", 1_000_000)]
        for (suffix, scale) in units where value.hasSuffix(suffix) {
            if let number = Double(value.dropLast(suffix.count)), number >= 0, number.isFinite { return number * scale }
            break
        }
        if let number = Double(value), number >= 0, number.isFinite { return number * 1000 }
        throw .invalidSetting(
            .threshold, value: "'\(raw)'", problem: "expected a duration such as 250ms, 1.5s or 800us")
    }

    // MARK: Checking

    /// Checks the threshold against `result`.
    public func check(_ result: LoadResult) -> ThresholdOutcome {
        guard let actual = measure(result) else {
            return ThresholdOutcome(expression: text, passed: false, actual: nil, shown: "not measured in this run")
        }
        return ThresholdOutcome(
            expression: text, passed: comparison.holds(actual, limit), actual: actual,
            shown: Self.show(actual, unit: unit))
    }

    /// The metric's value in the threshold's unit, or nil when the run did not measure it.
    func measure(_ result: LoadResult) -> Double? {
        if let platform {
            guard let platforms = result.platforms else { return nil }
            return measure(platforms[platform], of: platform, in: result)
        }
        switch metric {
        case .percentile, .min, .mean, .max: return latency(result.latency)
        case .rate: return result.throughput
        case .errors:
            return scaled(
                result.errorCount,
                of: (result.delivery?.submitted ?? result.pushes.produced) + result.pushes.rejectedTooLarge)
        case .lost:
            guard let delivery = result.delivery else { return unit == .percent ? 0 : 0 }
            return scaled(delivery.lost, of: delivery.submitted)
        case .rejected:
            guard let delivery = result.delivery else { return nil }
            return scaled(delivery.rejected, of: delivery.submitted)
        case .superseded:
            guard let delivery = result.delivery else { return nil }
            return scaled(delivery.superseded, of: delivery.submitted)
        case .wouldNotRender:
            let phones = result.platforms?.android.phones
            guard result.device != nil || phones != nil else { return nil }
            return scaled(
                (result.device?.wouldNotRender ?? 0) + (phones?["wouldNotRender"] ?? 0),
                of: (result.device?.received ?? 0)
                    + (phones == nil ? 0 : result.platforms?.android.delivery.delivered ?? 0))
        case .exhausted:
            return scaled(result.activities.exhaustedBudget, of: result.activities.played)
        }
    }

    /// The metric of one platform's share of the run.
    private func measure(_ share: LoadResult.PlatformResult, of platform: Platform, in result: LoadResult) -> Double? {
        let delivery = share.delivery
        switch metric {
        case .percentile, .min, .mean, .max: return latency(share.latency)
        case .rate:
            return result.durationMillis > 0 ? Double(delivery.delivered) * 1000 / Double(result.durationMillis) : 0
        case .errors: return scaled(delivery.errors, of: delivery.submitted)
        case .lost: return scaled(delivery.lost, of: delivery.submitted)
        case .rejected: return scaled(delivery.rejected, of: delivery.submitted)
        case .superseded: return scaled(delivery.superseded, of: delivery.submitted)
        case .wouldNotRender:
            switch platform {
            case .ios:
                guard let device = result.device else { return nil }
                return scaled(device.wouldNotRender, of: device.received)
            case .android:
                guard let phones = share.phones else { return nil }
                return scaled(phones["wouldNotRender"] ?? 0, of: delivery.delivered)
            }
        case .exhausted:
            // Android has no budget: its rules pace updates instead.
            guard platform == .ios else { return nil }
            return scaled(result.activities.exhaustedBudget, of: share.activities)
        }
    }

    /// A latency metric of `latency`, microseconds; nil without samples. p50, p90, p99 and p99.9
    /// are the summary's own (as the report prints them), any other percentile its histogram's.
    private func latency(_ latency: LoadResult.LatencySummary) -> Double? {
        guard latency.count > 0 else { return nil }
        switch metric {
        case .percentile(let p):
            let named: [Double: UInt64] = [
                50: latency.p50Micros, 90: latency.p90Micros, 99: latency.p99Micros, 99.9: latency.p999Micros,
            ]
            if let value = named[p] { return Double(value) }
            return latency.percentile(p).map { Double($0) }
        case .min: return Double(latency.minMicros)
        case .mean: return latency.meanMicros
        default: return Double(latency.maxMicros)
        }
    }

    private func scaled(_ count: Int, of total: Int) -> Double {
        unit == .percent ? (total == 0 ? 0 : Double(count) / Double(total)) : Double(count)
    }

    static func show(_ value: Double, unit: Unit) -> String {
        switch unit {
        case .micros: return LatencyText.format(micros: UInt64(max(0, value)))
        case .count: return String(Int64(value))
        case .percent: return PercentText.format(value)
        case .perSecond: return "\(Int64(value.rounded()))/s"
        }
    }
}

/// How a threshold fared.
public struct ThresholdOutcome: Sendable, Codable, Equatable {
    public var expression: String
    public var passed: Bool
    /// The measured value (microseconds, a count, a fraction or pushes per second); nil when the
    /// run did not measure it (which fails the threshold).
    public var actual: Double?
    /// The measured value as people read it.
    public var shown: String
}

/// Latency as people read it: `850µs`, `12.3ms`, `1.25s`.
public enum LatencyText {
    public static func format(micros: UInt64) -> String {
        if micros < 1000 { return "\(micros)µs" }
        if micros < 10_000 { return trimmed(Double(micros) / 1000, digits: 2) + "ms" }
        if micros < 1_000_000 { return trimmed(Double(micros) / 1000, digits: 1) + "ms" }
        return trimmed(Double(micros) / 1_000_000, digits: 2) + "s"
    }

    static func trimmed(_ value: Double, digits: Int) -> String {
        var text = String(format: "%.\(digits)f", value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// A fraction as a percentage: `0.05%`, `12.5%`, `100%`.
public enum PercentText {
    public static func format(_ fraction: Double) -> String {
        let percent = fraction * 100
        if percent == 0 { return "0%" }
        if percent < 0.01 { return "<0.01%" }
        if percent < 1 { return LatencyText.trimmed(percent, digits: 2) + "%" }
        return LatencyText.trimmed(percent, digits: 1) + "%"
    }
}
