import Liveline

/// The bridge's time, and the one place it changes form.
///
/// An instant is `Millis` (UNIX milliseconds) everywhere in the bridge: in memory, in the
/// store (BIGINT), and for the engine, which counts in it. It is read from the system's clock
/// here, rounded down to the millisecond, and turned into whole seconds here for what counts
/// in seconds (the engine's steps, signature windows). The HTTP API writes an instant as
/// ISO-8601 text with `JSONAnswer`, the recorder with `UTCTime`; a configured span is a
/// `Duration`, added to an instant as its `Duration.millis`.
public enum BridgeClock {
    /// Now, from the system's real-time clock (`WallClock`), rounded down to the millisecond.
    public static func now() -> Millis { WallClock().now() }

    /// The whole second at or before `instant` (rounded down), in milliseconds: the instant a
    /// dispatch step runs the engine at. `aps.timestamp` counts seconds anyway, and a `!date +14m` evaluated
    /// at a whole second stays a whole number, so a Date field never turns from an integer into
    /// a fraction between two pushes (which an app decoding it as Int would reject).
    public static func wholeSecond(_ instant: Millis) -> Millis { unixSeconds(instant) * 1000 }

    /// The seconds from `start` to `end`, as metrics and the dashboard show a span.
    public static func seconds(from start: Millis, to end: Millis) -> Double { Double(end - start) / 1000 }

    /// `span` in seconds, to the attosecond a `Double` keeps, as metrics show a measured span.
    public static func seconds(_ span: Duration) -> Double {
        Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
    }

    /// `instant` in whole UNIX seconds, rounded down: what signature windows and per-second
    /// counters count.
    public static func unixSeconds(_ instant: Millis) -> Int64 {
        instant >= 0 ? instant / 1000 : (instant - 999) / 1000
    }
}
