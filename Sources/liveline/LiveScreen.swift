import Foundation
import Synchronization
import Liveline
import LivelineAPNs
import LivelineTerminal

/// Redraws the activity cards a few times a second on a terminal, in place.
final class LiveScreen: Sendable {
    let monitor: PlayMonitor
    let device: @Sendable (Int) -> DeviceSnapshot?
    /// The activity's Android Live Update, drawn beside its card (`--platform both`).
    let android: @Sendable (Int) -> AndroidCard?
    let title: String
    private let stopped = Atomic<Bool>(false)

    init(
        monitor: PlayMonitor, device: @escaping @Sendable (Int) -> DeviceSnapshot?,
        android: @escaping @Sendable (Int) -> AndroidCard? = { _ in nil }, title: String
    ) {
        self.monitor = monitor
        self.device = device
        self.android = android
        self.title = title
    }

    func run() async {
        Terminal.write("\u{1B}[?25l\u{1B}[2J")
        while !stopped.load(ordering: .acquiring) {
            draw()
            try? await Task.sleep(for: .milliseconds(200))
        }
        draw()
        Terminal.write("\u{1B}[?25h")
    }

    func stop() async { stopped.store(true, ordering: .releasing) }

    private func draw() {
        let (columns, rows) = Terminal.size
        let width = min(columns, 100)
        let color = Terminal.colorOnStdout
        let now = WallClock().now()
        var lines = [color ? "\u{1B}[1m\(title)\u{1B}[0m" : title, ""]
        let cards = monitor.cards(now: now, device: device)
        var shown = 0
        for (index, card) in cards.enumerated() {
            var rendered: [String]
            if let phone = android(index) {
                // Beside the card when the terminal is wide enough for both, under it otherwise.
                let left = min(width, columns - 1 - AndroidCard.width)
                if left >= 56 {
                    rendered = AndroidCard.beside(
                        card.render(width: left, color: color), leftWidth: left,
                        phone.render(width: AndroidCard.width, color: color))
                } else {
                    rendered = card.render(width: width, color: color) + phone.render(width: width, color: color)
                }
            } else {
                rendered = card.render(width: width, color: color)
            }
            if lines.count + rendered.count + 2 > rows, shown > 0 { break }
            lines += rendered
            shown += 1
        }
        if shown < cards.count {
            lines.append("… and \(cards.count - shown) more (a taller terminal shows them, or use --activity)")
        }
        lines.append(monitor.summary() + (stopped.load(ordering: .acquiring) ? "" : " · Ctrl-C ends the activities"))
        Terminal.write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J\n")
    }
}
