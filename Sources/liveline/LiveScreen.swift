import Foundation
import Synchronization
import Liveline
import LivelineAPNs
import LivelineTerminal

/// Redraws the activity cards a few times a second on a terminal, in place.
final class LiveScreen: Sendable {
    let monitor: PlayMonitor
    let device: @Sendable (Int) -> DeviceSnapshot?
    let title: String
    private let stopped = Atomic<Bool>(false)

    init(monitor: PlayMonitor, device: @escaping @Sendable (Int) -> DeviceSnapshot?, title: String) {
        self.monitor = monitor
        self.device = device
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
        for card in cards {
            let rendered = card.render(width: width, color: color)
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
