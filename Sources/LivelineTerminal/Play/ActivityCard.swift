import Liveline

/// What a live view shows of one activity: as the device holds it, and what happens next.
///
/// Plain text in, so it can be filled from the engine (what was sent) or from a device view (what
/// the mock's device decoded and shows). ``render(width:color:)`` draws it as a box of lines.
public struct ActivityCard: Sendable {
    public enum Status: String, Sendable {
        case pending = "PENDING", active = "ACTIVE", stale = "STALE", ended = "ENDED", dismissed = "DISMISSED",
            stopped = "STOPPED"
    }

    public var name: String
    public var status: Status
    /// `MatchAttributes · homeTeam Northbridge FC · …`
    public var attributes: String
    /// The content-state, field by field, as shown.
    public var fields: [(key: String, value: String)]
    /// The last alert, if the device lit the screen for one.
    public var alert: String?
    /// Short facts: relevance, budget left, stale time.
    public var facts: [String]
    /// The last push: when, priority, why, and what APNs and the device did.
    public var lastPush: String?
    /// The next beat and when.
    public var next: String?
    /// From 0 to 1.
    public var progress: Double
    public var progressText: String
    /// Problems to show in red: would-not-render reasons, a stopped activity.
    public var warnings: [String]
    /// The story's clock beside what the device shows: `+23:10 at 60× · the device shows the push of +22:00`.
    public var clock: String?
    /// The push the engine holds and until when.
    public var held: String?
    /// Why there are fewer pushes than beats, when the story runs faster than the device's rules.
    public var why: String?

    public init(
        name: String, status: Status, attributes: String, fields: [(key: String, value: String)], alert: String? = nil,
        facts: [String] = [], lastPush: String? = nil, next: String? = nil, progress: Double = 0,
        progressText: String = "",
        warnings: [String] = [], clock: String? = nil, held: String? = nil, why: String? = nil
    ) {
        self.name = name
        self.status = status
        self.attributes = attributes
        self.fields = fields
        self.alert = alert
        self.facts = facts
        self.lastPush = lastPush
        self.next = next
        self.progress = progress
        self.progressText = progressText
        self.warnings = warnings
        self.clock = clock
        self.held = held
        self.why = why
    }

    /// The card as lines of exactly `width` columns (`width` at least 40).
    public func render(width: Int, color: Bool) -> [String] {
        let width = max(40, width)
        let inner = width - 4
        let frame = CardFrame(width: width, color: color)
        let statusColor: String
        switch status {
        case .active: statusColor = "1;32"
        case .stale: statusColor = "1;33"
        case .stopped: statusColor = "1;31"
        case .pending: statusColor = "1;36"
        case .ended, .dismissed: statusColor = "2"
        }
        let title = " \(Self.clip(name, to: inner - status.rawValue.count - 8)) "
        let tag = " ● \(status.rawValue) "
        let dashes = max(1, width - 3 - title.unicodeScalars.count - tag.unicodeScalars.count)
        var lines = [
            "╭─" + frame.paint(title, "1") + String(repeating: "─", count: dashes) + frame.paint(tag, statusColor) + "╮"
        ]
        lines.append(frame.line(attributes, "2"))
        if let clock { lines.append(frame.line("story  " + clock, "1")) }
        let keyWidth = min(18, fields.map { $0.key.unicodeScalars.count }.max() ?? 0)
        for field in fields {
            let key = Self.clip(field.key, to: keyWidth)
            lines.append(
                frame.line(
                    "  " + key + String(repeating: " ", count: keyWidth - key.unicodeScalars.count) + "  " + field.value
                ))
        }
        if let alert { lines.append(frame.line("alert  " + alert, "1;35")) }
        if !facts.isEmpty { lines.append(frame.line(facts.joined(separator: " · "))) }
        if let lastPush { lines.append(frame.line("last   " + lastPush)) }
        if let held { lines.append(frame.line("held   " + held, "33")) }
        if let next { lines.append(frame.line("next   " + next)) }
        if let why { lines.append(frame.line("why    " + why, "2")) }
        for warning in warnings { lines.append(frame.line("!  " + warning, "1;31")) }
        let barWidth = max(10, min(40, inner - progressText.unicodeScalars.count - 2))
        let filled = Int((progress * Double(barWidth)).rounded())
        lines.append(
            frame.line(
                String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + "  "
                    + progressText))
        lines.append("╰" + String(repeating: "─", count: width - 2) + "╯")
        return lines
    }

    /// `text` cut to `width` columns with an ellipsis.
    static func clip(_ text: String, to width: Int) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > width else { return text }
        guard width > 1 else { return "…" }
        return String(String.UnicodeScalarView(scalars.prefix(width - 1))) + "…"
    }
}

extension StateValue {
    /// How a value reads on a card: text bare, dates as clock times relative to `now`.
    public func cardText(now: Millis) -> String {
        switch self {
        case .null: return "—"
        case .string(let text): return text
        case .date(let unix): return Self.clockText(unix, now: now)
        case .dateRange(let a, let b): return Self.clockText(a, now: now) + " … " + Self.clockText(b, now: now)
        default: return templateText
        }
    }

    /// `20:38:27Z (in 4m12s)`.
    public static func clockText(_ unix: Millis, now: Millis) -> String {
        let time = String(UTCTime.format(unix / 1000 * 1000).dropFirst(11).prefix(8))
        let delta = unix - now
        let relative =
            abs(delta) < 1000
            ? "now"
            : delta > 0
                ? "in \(DurationText.format(delta / 1000 * 1000))" : "\(DurationText.format(-delta / 1000 * 1000)) ago"
        return "\(time)Z (\(relative))"
    }
}
