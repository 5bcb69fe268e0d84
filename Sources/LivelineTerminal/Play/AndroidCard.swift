/// An Android phone's Live Update of an activity, drawn beside the activity's card: the
/// status-bar chip, the promoted notification (title, text, the progress track) or, when it is
/// a plain notification, why; and what the phone did with the last message.
public struct AndroidCard: Sendable {
    /// The width the card is drawn at beside another.
    public static let width = 40

    public var title: String
    public var text: String?
    /// The chip as the status bar shows it (cut), when the notification is promoted.
    public var chip: String?
    public var progress: Int?
    public var progressMax: Int?
    public var promoted: Bool
    public var notPromotedBecause: String?
    /// Still ongoing (not ended).
    public var ongoing: Bool
    /// What the phone did with the last message: `posted`, `updated`, `dropped-by-rate`, …
    public var lastOutcome: String?

    public init(
        title: String, text: String?, chip: String?, progress: Int?, progressMax: Int?, promoted: Bool,
        notPromotedBecause: String?, ongoing: Bool, lastOutcome: String?
    ) {
        self.title = title
        self.text = text
        self.chip = chip
        self.progress = progress
        self.progressMax = progressMax
        self.promoted = promoted
        self.notPromotedBecause = notPromotedBecause
        self.ongoing = ongoing
        self.lastOutcome = lastOutcome
    }

    /// The card as lines of exactly `width` columns (`width` at least 30).
    public func render(width: Int, color: Bool) -> [String] {
        let width = max(30, width)
        let inner = width - 4
        let frame = CardFrame(width: width, color: color)
        let heading = " Android "
        let tag = promoted ? " Live Update " : (ongoing ? " notification " : " ended ")
        let dashes = max(1, width - 3 - heading.unicodeScalars.count - tag.unicodeScalars.count)
        var lines = [
            "╭─" + frame.paint(heading, "1") + String(repeating: "─", count: dashes)
                + frame.paint(tag, promoted ? "1;32" : "2")
                + "╮"
        ]
        lines.append(frame.line("chip   " + (chip.map { "[\($0)]" } ?? "—"), chip == nil ? "2" : "1;36"))
        lines.append(frame.line(title, "1"))
        if let text { lines.append(frame.line(text)) }
        if let progress, let progressMax, progressMax > 0 {
            let label = "\(progress)/\(progressMax)"
            let barWidth = max(6, inner - label.unicodeScalars.count - 2)
            let filled = min(barWidth, max(0, progress * barWidth / progressMax))
            lines.append(
                frame.line(
                    String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + "  "
                        + label))
        }
        if let notPromotedBecause { lines.append(frame.line("plain: " + notPromotedBecause, "33")) }
        if let lastOutcome { lines.append(frame.line("last   " + lastOutcome, "2")) }
        lines.append("╰" + String(repeating: "─", count: width - 2) + "╯")
        return lines
    }

    /// Two cards' lines side by side, a space between; the shorter padded with blank lines.
    public static func beside(_ left: [String], leftWidth: Int, _ right: [String]) -> [String] {
        let count = max(left.count, right.count)
        return (0..<count).map { index in
            (index < left.count ? left[index] : String(repeating: " ", count: leftWidth)) + " "
                + (index < right.count ? right[index] : "")
        }
    }
}
