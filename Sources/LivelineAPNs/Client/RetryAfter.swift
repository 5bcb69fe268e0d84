import LivelineCore

/// Reads an HTTP `Retry-After` (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
/// APNs does not send one today; a proxy in front of it may, and its wait is honoured.
enum RetryAfter {
    /// The wait `text` asks for, counted from `now` (UNIX milliseconds) when it is a date; nil
    /// when it is neither form. A date in the past waits nothing.
    static func parse(_ text: String, now: Millis) -> Duration? {
        let trimmed = text.trimmingSpaces
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard trimmed.utf8.count <= 9, let seconds = Int64(trimmed) else { return .seconds(999_999_999) }
            return .seconds(seconds)
        }
        guard let date = httpDate(trimmed) else { return nil }
        return .milliseconds(max(0, date - now))
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, the form HTTP senders must use), as
    /// UNIX milliseconds.
    static func httpDate(_ text: String) -> Millis? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])).map({ $0 + 1 }),
            let year = Int(parts[3]), (1970...9999).contains(year)
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int64(clock[0]), let minute = Int64(clock[1]),
            let second = Int64(clock[2]), (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = Int64(UTCTime.daysFromCivil(year: year, month: month, day: day))
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
