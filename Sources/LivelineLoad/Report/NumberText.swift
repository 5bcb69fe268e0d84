/// Numbers as the reports show them: `10,800,000`, `1.2M`, `412 MB`.
public enum NumberText {
    /// Thousands separated by commas.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }

    /// Short form for charts: `950`, `12.5k`, `1.2M`.
    public static func short(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 1_000_000 {
            return LatencyText.trimmed(value / 1_000_000, digits: magnitude >= 10_000_000 ? 0 : 1) + "M"
        }
        if magnitude >= 1000 { return LatencyText.trimmed(value / 1000, digits: magnitude >= 10_000 ? 0 : 1) + "k" }
        return LatencyText.trimmed(value, digits: magnitude >= 10 ? 0 : 1)
    }

    /// Bytes: `512 B`, `38 MB`, `1.2 GB` (powers of 1024).
    public static func bytes(_ value: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var size = Double(value)
        var unit = 0
        while size >= 1024, unit < units.count - 1 {
            size /= 1024
            unit += 1
        }
        return (unit == 0 || size >= 10 ? String(Int(size.rounded())) : LatencyText.trimmed(size, digits: 1)) + " "
            + units[unit]
    }

    /// Milliseconds as a duration: `850ms`, `8.4s`, `6m 12s`, `1h 04m`.
    public static func duration(millis: Int64) -> String {
        if millis < 1000 { return "\(millis)ms" }
        if millis < 60_000 { return LatencyText.trimmed(Double(millis) / 1000, digits: 1) + "s" }
        let seconds = millis / 1000
        if seconds < 3600 { return "\(seconds / 60)m \(pad(seconds % 60))s" }
        return "\(seconds / 3600)h \(pad(seconds % 3600 / 60))m"
    }

    private static func pad(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
