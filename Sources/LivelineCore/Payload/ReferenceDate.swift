/// ActivityKit's date encoding.
///
/// The app decodes `content-state` with a default `JSONDecoder`, whose date strategy is
/// `.deferredToDate`: a `Date` is a JSON number of seconds since 2001-01-01T00:00:00Z, not UNIX
/// seconds and not ISO-8601. Sending UNIX seconds shows a date 31 years in the future.
public enum ReferenceDate {
    /// Seconds between 1970-01-01 and 2001-01-01.
    public static let unixOffsetSeconds: Int64 = 978_307_200

    /// Reference-date milliseconds for a UNIX-milliseconds instant.
    @inlinable
    public static func millis(fromUnix unixMillis: Millis) -> Millis {
        unixMillis - unixOffsetSeconds * 1000
    }

    /// Reference-date seconds as a `Double`, what `Date.timeIntervalSinceReferenceDate` returns.
    public static func seconds(fromUnix unixMillis: Millis) -> Double {
        Double(millis(fromUnix: unixMillis)) / 1000
    }
}
