import Liveline

/// How long a stream waits before it connects again: doubling from `initial` up to `maximum`,
/// each wait drawn between half and all of that (jitter), so many bridges that lost the same
/// feed at once do not all come back in the same instant.
public struct ReconnectBackoff: Sendable, Hashable, CustomStringConvertible {
    /// The first wait's bound.
    public var initial: Duration
    /// The largest bound.
    public var maximum: Duration

    /// A back-off from `initial` up to `maximum`.
    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60)) {
        self.initial = max(.milliseconds(1), initial)
        self.maximum = max(self.initial, maximum)
    }

    /// The wait before attempt `attempt` (0 for the first reconnect), with `unit` a random draw
    /// in 0..<1.
    public func delay(attempt: Int, unit: Double) -> Millis {
        let doublings = min(max(attempt, 0), 40)
        let ceiling = min(
            Double(maximum.millis), Double(initial.millis) * Double(sign: .plus, exponent: doublings, significand: 1))
        let draw = min(max(unit, 0), 1)
        return Millis((ceiling * (0.5 + 0.5 * draw)).rounded(.down))
    }

    /// `1s doubling to 1m, jittered`.
    public var description: String {
        "\(DurationText.format(initial.millis)) doubling to \(DurationText.format(maximum.millis)), jittered"
    }
}
