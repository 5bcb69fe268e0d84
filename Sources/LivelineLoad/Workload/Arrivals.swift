import Liveline

/// When each activity of a load test starts, after the run starts.
///
/// Offsets are on the run's clock: wall time with the real clock, story time with the virtual
/// clock. They depend only on the copy number and the total, so shards of a test start each
/// copy exactly when the whole test would.
public enum Arrivals: Sendable, Hashable, CustomStringConvertible {
    /// Every activity starts at once: match night, everyone watching the same kick-off.
    case allAtOnce
    /// Starts spread evenly over a duration: copy `c` of `n` starts at `c × duration / n`.
    case ramp(Millis)
    /// A steady arrival rate: copy `c` starts at `c / rate` seconds.
    case rate(perSecond: Double)

    /// The start offset of copy `copy` of `total`, in milliseconds.
    public func offset(ofCopy copy: Int, total: Int) -> Millis {
        switch self {
        case .allAtOnce:
            return 0
        case .ramp(let duration):
            guard total > 0 else { return 0 }
            return Millis((Double(copy) * Double(duration) / Double(total)).rounded(.down))
        case .rate(let perSecond):
            guard perSecond > 0 else { return 0 }
            return Millis((Double(copy) * 1000 / perSecond).rounded(.down))
        }
    }

    /// When the last of `total` copies starts.
    public func lastOffset(total: Int) -> Millis {
        total > 0 ? offset(ofCopy: total - 1, total: total) : 0
    }

    /// Parses `--rate` values: `500/s`, `500`, `30/m`, `2000/min`.
    public static func parseRate(_ text: String) throws(LoadError) -> Double {
        var number = Substring(text.trimmingWhitespace)
        var per: Double = 1
        if let slash = number.firstIndex(of: "/") {
            let unit = number[number.index(after: slash)...]
            switch unit {
            case "s", "sec", "second": per = 1
            case "m", "min", "minute": per = 60
            case "h", "hour": per = 3600
            default: throw .invalidSetting(.rate, value: text, problem: "expected N/s, N/m or N/h (e.g. 500/s)")
            }
            number = number[..<slash]
        }
        guard let value = Double(number), value > 0, value.isFinite else {
            throw .invalidSetting(.rate, value: text, problem: "expected a positive number of arrivals, such as 500/s")
        }
        return value / per
    }

    public var description: String {
        switch self {
        case .allAtOnce: "all at once"
        case .ramp(let duration): "ramp over \(DurationText.format(duration))"
        case .rate(let perSecond): "\(RateText.format(perSecond)) arrivals/s"
        }
    }
}

/// Short number formatting for rates: `1500`, `2.5`, `0.25`.
enum RateText {
    static func format(_ value: Double) -> String {
        if value == value.rounded() { return String(Int64(value)) }
        let hundredths = (value * 100).rounded() / 100
        return String(hundredths)
    }
}

extension String {
    var trimmingWhitespace: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
