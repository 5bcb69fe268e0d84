import Liveline

/// Reads the dates webhook senders write into UNIX milliseconds, which is how the engine holds
/// a `Date` (`StateValue.date(_:)`); the encoder turns them into ActivityKit's reference-date
/// seconds later.
///
/// Accepted: ISO-8601 / RFC 3339 date-times (`2026-11-23T13:05:00Z`, with or without fractional
/// seconds, with `Z` or an offset like `+01:00`), and UNIX time as a number or a decimal string,
/// read as seconds or milliseconds by magnitude.
public enum DateConversion {
    /// Below this magnitude a UNIX number is seconds (up to the year 5138), above it milliseconds
    /// (from March 1973).
    static let millisThreshold = 100_000_000_000.0

    /// The date `value` stands for, or nil when it is no date.
    public static func millis(from value: StateValue) -> Millis? {
        switch value {
        case .int(let number): return unix(Double(number))
        case .double(let number): return unix(number)
        case .date(let millis): return millis
        case .string(let text):
            if let number = Double(text), text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 }) {
                return unix(number)
            }
            return iso8601(text)
        default: return nil
        }
    }

    /// UNIX seconds or milliseconds, told apart by magnitude.
    public static func unix(_ number: Double) -> Millis? {
        guard number.isFinite, abs(number) < 1e15 else { return nil }
        if abs(number) >= millisThreshold { return Millis(number.rounded()) }
        return Millis((number * 1000).rounded())
    }

    /// An ISO-8601 / RFC 3339 instant, read by Liveline's own `UTCTime` (the reader scenario
    /// files' absolute dates use): `2026-11-23T13:05:00.123Z`, `…+01:00`; seconds optional.
    public static func iso8601(_ text: String) -> Millis? { UTCTime.parse(text) }
}
