import Foundation
import Liveline

/// Extra time before the mock answers a request.
public enum Latency: Sendable, Hashable, CustomStringConvertible {
    /// Always this many milliseconds.
    case fixed(Millis)
    /// Uniformly between the two bounds, in milliseconds.
    case uniform(Millis, Millis)
    /// Exponentially distributed with this mean, in milliseconds (capped at 20× the mean).
    case exponential(mean: Millis)

    /// Parses `20ms`, `10ms-50ms` or `exp:20ms`.
    public init?(_ text: String) {
        if text.hasPrefix("exp:") {
            guard let mean = DurationText.parse(String(text.dropFirst(4))) else { return nil }
            self = .exponential(mean: mean)
        } else if let dash = text.firstIndex(of: "-") {
            guard let low = DurationText.parse(String(text[..<dash])),
                let high = DurationText.parse(String(text[text.index(after: dash)...])),
                low <= high
            else { return nil }
            self = .uniform(low, high)
        } else if let fixed = DurationText.parse(text) {
            self = .fixed(fixed)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .fixed(let value): DurationText.format(value)
        case .uniform(let low, let high): "\(DurationText.format(low))-\(DurationText.format(high))"
        case .exponential(let mean): "exp:\(DurationText.format(mean))"
        }
    }

    /// Draws one delay.
    func sample(_ random: inout SplitMix64) -> Millis {
        switch self {
        case .fixed(let value): return value
        case .uniform(let low, let high):
            return low + Millis(random.nextUnit() * Double(high - low + 1)).clamped(to: 0...(high - low))
        case .exponential(let mean):
            let unit = max(random.nextUnit(), 1e-12)
            return min(Millis(-Double(mean) * Foundation.log(unit)), mean * 20)
        }
    }
}

extension Comparable {
    fileprivate func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
