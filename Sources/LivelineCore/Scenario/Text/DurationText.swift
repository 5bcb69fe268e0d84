/// Parses and prints the durations scenario files use: `90s`, `23m`, `1h05m10s`, `250ms`, `0`.
public enum DurationText {
    /// The units, largest first. Each may appear once, in this order.
    private static let units: [(suffix: String, millis: Millis)] = [
        ("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1),
    ]

    /// What a valid duration looks like, for error messages.
    public static let expected = "a duration like 90s, 23m, 1h05m10s or 250ms"

    /// Parses `text`, or returns nil when it is not a duration.
    public static func parse(_ text: String) -> Millis? {
        let bytes = Array(text.utf8)
        if bytes == [UInt8(ascii: "0")] { return 0 }
        guard !bytes.isEmpty else { return nil }
        var index = 0
        var total: Millis = 0
        var nextUnit = 0
        while index < bytes.count {
            var value: Millis = 0
            let digitsStart = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                let (product, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                value = product + Millis(bytes[index] - 48)
                index += 1
            }
            guard index > digitsStart else { return nil }
            let suffixStart = index
            while index < bytes.count, bytes[index] >= 97, bytes[index] <= 122 { index += 1 }
            let suffix = String(decoding: bytes[suffixStart..<index], as: UTF8.self)
            guard let unit = units[nextUnit...].firstIndex(where: { $0.suffix == suffix }) else { return nil }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: units[unit].millis)
            guard !overflow else { return nil }
            total += scaled
            nextUnit = unit + 1
        }
        return total
    }

    /// Formats `millis` compactly: `1h05m10s`, `23m`, `0s`, `1.250s`.
    public static func format(_ millis: Millis) -> String {
        if millis < 0 { return "-" + format(-millis) }
        if millis == 0 { return "0s" }
        let hours = millis / 3_600_000
        let minutes = (millis / 60_000) % 60
        let seconds = (millis / 1000) % 60
        let ms = millis % 1000
        var out = ""
        if hours > 0 { out += "\(hours)h" }
        if minutes > 0 { out += hours > 0 && minutes < 10 ? "0\(minutes)m" : "\(minutes)m" }
        if seconds > 0 || ms > 0 {
            let pad = (hours > 0 || minutes > 0) && seconds < 10 ? "0" : ""
            if ms > 0 {
                let frac = String(ms + 1000).dropFirst()
                out += "\(pad)\(seconds).\(frac)s"
            } else {
                out += "\(pad)\(seconds)s"
            }
        }
        return out
    }

    /// Formats an offset as a clock, `+1:05:10` or `+23:00`, for timelines.
    public static func clock(_ millis: Millis) -> String {
        let sign = millis < 0 ? "-" : "+"
        let total = abs(millis) / 1000
        let h = total / 3600, m = (total / 60) % 60, s = total % 60
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return h > 0 ? "\(sign)\(h):\(two(m)):\(two(s))" : "\(sign)\(two(m)):\(two(s))"
    }
}
