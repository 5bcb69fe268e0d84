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
        guard let whole = whole(seconds) else { return String(seconds) }
        return String(whole)
    }

    /// The integer part, when it fits in 64 bits.
    private static func whole(_ seconds: Double) -> Int64? {
        seconds.isFinite && abs(seconds) < 9.2e18 ? Int64(seconds) : nil
    }

    /// "timestamp T is not newer than L, the content shown": the first reason of every push
    /// dropped as old, so written straight into one string (joining its five pieces cost a
    /// device more than deciding).
    static func notNewerReason(_ timestamp: Double, _ last: Double) -> String {
        guard let timestamp = whole(timestamp), let last = whole(last) else {
            return "timestamp " + text(timestamp) + " is not newer than " + text(last) + ", the content shown"
        }
        let pieces: (StaticString, StaticString, StaticString) = (
            "timestamp ", " is not newer than ", ", the content shown"
        )
        let capacity = pieces.0.utf8CodeUnitCount + pieces.1.utf8CodeUnitCount + pieces.2.utf8CodeUnitCount + 2 * 20
        return String(unsafeUninitializedCapacity: capacity) { out in
            var count = Self.write(pieces.0, into: out, at: 0)
            count = Self.write(timestamp, into: out, at: count)
            count = Self.write(pieces.1, into: out, at: count)
            count = Self.write(last, into: out, at: count)
            return Self.write(pieces.2, into: out, at: count)
        }
    }

    /// Copies `text` into `out` at `position`; returns the position after it.
    private static func write(
        _ text: StaticString, into out: UnsafeMutableBufferPointer<UInt8>, at position: Int
    ) -> Int {
        text.withUTF8Buffer { bytes in
            position + UnsafeMutableBufferPointer(rebasing: out[position...]).update(fromContentsOf: bytes)
        }
    }

    /// Writes `number` in decimal into `out` at `position`; returns the position after it.
    private static func write(_ number: Int64, into out: UnsafeMutableBufferPointer<UInt8>, at position: Int) -> Int {
        var position = position
        if number < 0 {
            out[position] = UInt8(ascii: "-")
            position += 1
        }
        // |number| < 9.2e18: at most 19 digits, written last first, then put in order.
        var magnitude = number.magnitude
        let start = position
        repeat {
            out[position] = UInt8(truncatingIfNeeded: magnitude % 10) + UInt8(ascii: "0")
            position += 1
            magnitude /= 10
        } while magnitude > 0
        var low = start, high = position - 1
        while low < high {
            out.swapAt(low, high)
            low += 1
            high -= 1
        }
        return position
    }
}
