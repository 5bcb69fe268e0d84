import Dispatch
import Foundation
import Liveline
import LivelineAPNs
import LivelineFCM
import LivelineMockAPNs
import LivelineTerminal
import Synchronization

/// One play in real time, once its destination is connected: the session over the story,
/// what the terminal shows of it (the live cards, or a line per push), the dashboard's wait
/// after the story, and the ways it ends early: Ctrl-C, and a reader that closed the output,
/// both of which end the activities properly.
struct PlayRun {
    let scenario: Scenario
    let destination: Destination
    let client: APNsClient
    /// The Live Updates' side, with `--platform android|both`.
    let android: AndroidPlay?
    let bundleID: String
    let speed: Double
    let seed: UInt64?
    let endsActivities: Bool
    /// Draw the cards in place (a terminal), rather than a line per push.
    let view: Bool

    /// Plays the story to its end (or until stopped), shuts the client and the mock down, and
    /// returns the report; its summary is on standard error unless the output was closed.
    func run() async -> SessionReport {
        let clock = WallClock()
        let start = clock.now() + 1000
        let run = ScenarioRun(scenario: scenario, start: start, seed: seed, speed: speed)
        let monitor = PlayMonitor(scenario: scenario, start: start, speed: speed, activities: run.activities)
        let relay = android.map { android in
            let view = self.view
            return AndroidRelay(client: android.client, project: android.project, targets: android.targets) {
                delivery in
                if !view { Terminal.out(android.line(delivery, story: monitor.storyClock(delivery.message.time))) }
            }
        }
        let session = makeSession(run, clock: clock, monitor: monitor, relay: relay)
        let mock = destination.mock
        let dashboardURL = mock?.dashboardURL
        if let dashboardURL { Terminal.error("dashboard: \(dashboardURL)") }
        Terminal.error(
            destination.banner + (android.map { " + " + $0.banner } ?? "")
                + " · \(scenario.name) at \(speed == 1 ? "real time" : "\(StateValue.double(speed).templateText)×")"
                + (view ? "" : " · Ctrl-C ends the activities"))
        let screen =
            view
            ? LiveScreen(
                monitor: monitor, device: { index in mock.flatMap { destination.deviceSnapshot(index, in: $0) } },
                android: { [android] index in android?.card(index) },
                title: "\(scenario.name) · \(destination.banner)" + (android.map { " + " + $0.banner } ?? "")
                    + (dashboardURL.map { " · dashboard \($0)" } ?? ""))
            : nil
        let drawing = screen.map { screen in Task { await screen.run() } }
        // A reader that went away (… | head) asks for the same stop as Ctrl-C, quietly.
        Terminal.whenOutputCloses { session.requestStop(.requested) }
        let interrupts = Interrupts()
        let sigint = Self.onInterrupt(session: session, interrupts: interrupts, view: view)

        let report = await session.run()
        let androidReport = await relay?.finish()
        // With the dashboard, the page stays up after the story (its ended state is the point)
        // until Ctrl-C; the same signal source then answers it.
        let keepsServing = dashboardURL != nil && interrupts.none && !Terminal.outputClosed
        if !keepsServing { sigint.cancel() }
        if let screen, let drawing {
            await screen.stop()
            await drawing.value
        }
        await client.shutdown()
        if let androidReport, !Terminal.outputClosed { Terminal.error(androidReport.description) }
        if keepsServing, let dashboardURL {
            if screen == nil { Terminal.error(report.summary) }
            Terminal.error("the story has ended; the dashboard stays up at \(dashboardURL) until Ctrl-C")
            await Self.untilInterrupted(sigint)
        }
        await mock?.shutdown()
        await android?.stop()
        if screen == nil, !keepsServing, !Terminal.outputClosed { Terminal.error(report.summary) }
        return report
    }

    /// The session, whose observer feeds the monitor, tells the embedded mock's dashboard why
    /// each push was sent, and prints a line per answered push (without the live view).
    private func makeSession(
        _ run: ScenarioRun, clock: WallClock, monitor: PlayMonitor, relay: AndroidRelay?
    )
        -> LiveSession
    {
        let mock = destination.mock
        let view = self.view
        let destination = self.destination
        var resolver: (@Sendable (Int, String) async -> String?)?
        if let mock {
            resolver = { _, startToken in await Destination.updateToken(of: startToken, in: mock) }
        }
        return LiveSession(
            run: run, client: client, delivery: .init(bundleID: bundleID, updateTokenResolver: resolver),
            targets: Dictionary(uniqueKeysWithValues: destination.targets.enumerated().map { ($0.offset, $0.element) }),
            clock: clock, configuration: .init(endsActivitiesOnStop: endsActivities, reportsWakes: true),
            observer: { event in
                monitor.record(event)
                relay?.observe(event)
                if let mock { Self.annotate(event, in: mock) }
                switch event {
                case .refused(let push, let problem, let engine):
                    Terminal.error(
                        "warning: \(engine.program.name): a \(push.event.rawValue) push was not sent: \(problem)")
                case .delivery(let delivery) where !view:
                    let outcome = mock.flatMap { destination.deviceOutcome(delivery, in: $0) }
                    if let line = monitor.line(for: delivery, deviceOutcome: outcome) { Terminal.out(line) }
                default:
                    break
                }
            }
        )
    }

    /// Ctrl-C asks the session to stop: it ends the activities properly, drains, and returns.
    /// A second Ctrl-C leaves at once, without waiting for the drain.
    private static func onInterrupt(
        session: LiveSession, interrupts: Interrupts, view: Bool
    ) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let sigint = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        sigint.setEventHandler {
            if interrupts.add() > 1 {
                if view { Terminal.write("\u{1B}[?25h") }
                Terminal.error("interrupted again: leaving without waiting for APNs")
                Terminal.leave(PlayStatus.interrupted.rawValue)
            }
            if !view { Terminal.error("ending the activities (Ctrl-C again to leave at once)") }
            session.requestStop(.interrupted)
        }
        sigint.resume()
        return sigint
    }

    /// Returns at Ctrl-C (through `sigint`, the run's own source) or SIGTERM.
    private static func untilInterrupted(_ sigint: any DispatchSourceSignal) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        sigint.setEventHandler { continuation.yield() }
        signal(SIGTERM, SIG_IGN)
        let sigterm = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
        sigterm.setEventHandler { continuation.yield() }
        sigterm.resume()
        for await _ in stream { break }
        sigint.cancel()
        sigterm.cancel()
    }

    /// Tells the embedded mock's dashboard why each answered push was sent.
    private static func annotate(_ event: SessionEvent, in mock: MockAPNsServer) {
        guard case .delivery(let delivery) = event else { return }
        switch delivery {
        case .delivered(_, let push, let response, _, _), .rejected(_, let push, let response):
            if let id = response.apnsID ?? response.requestID {
                mock.annotatePush(id: id, reason: push.reason.description)
            }
        default:
            break
        }
    }
}

/// How many times Ctrl-C was pressed during a play.
private final class Interrupts: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more; returns how many so far.
    func add() -> Int { count.add(1, ordering: .relaxed).newValue }

    var none: Bool { count.load(ordering: .relaxed) == 0 }
}
