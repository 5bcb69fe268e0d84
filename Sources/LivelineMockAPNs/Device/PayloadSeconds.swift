import Liveline

/// The dates of a push's `aps` (`timestamp`, `stale-date`, `dismissal-date`) as the device keeps
/// and reports them. They are any JSON number, so one may be 1e300 or, past Double's range,
/// infinite: converting such a value to an integer traps, and one push would stop the mock.
enum PayloadSeconds {
    /// The farthest instant kept, either way: 2^60 ms, 36 million years, far past any real
    /// date, and small enough that adding or subtracting the mock's durations cannot overflow.
    static let limitMillis: Millis = 1 << 60

    /// `seconds` as UNIX milliseconds, clamped to ±``limitMillis``.
    static func millis(_ seconds: Double) -> Millis {
        let value = seconds * 1000
        guard value > -Double(limitMillis) else { return -limitMillis }
        guard value < Double(limitMillis) else { return limitMillis }
        return Millis(value)
    }

    /// Whole seconds as text: the integer part when it fits in 64 bits (what is always shown),
    /// else the number as Swift writes a `Double` ("1e+300", "inf").
    static func text(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 9.2e18 else { return String(seconds) }
        return String(Int64(seconds))
    }
}
