import Foundation
import Liveline
import LivelineAPNs
import LivelineTerminal
import Testing

/// What the live view's card says while `Scenarios/football.yaml` plays at 60×, in virtual
/// time: the story's clock beside what the device shows, the push the engine holds, and why
/// there are fewer pushes than beats.
@Suite struct PlayMonitorTests {
    /// Forwards the engine's pushes to the monitor as the play loop does, each delivered at once.
    struct DeliveringSink: PushSink {
        let monitor: PlayMonitor

        mutating func receive(_ push: Push, from activity: ActivityEngine) {
            monitor.submitted(push)
            monitor.record(
                .delivered(
                    activity: push.activity, push: push, response: APNsResponse(status: 200), attempts: 1, latency: 3))
        }

        mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}
    }

    static let football = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scenarios/football.yaml").path

    /// The card `seconds` (real) after the start at 60×, and the engine behind it.
    func card(after millis: Millis) throws -> (card: ActivityCard, engine: ActivityEngine) {
        let scenario = try ScenarioLoader().load(file: Self.football).scenario
        let start: Millis = 1_800_000_000_000
        var run = ScenarioRun(scenario: scenario, start: start, speed: 60)
        let monitor = PlayMonitor(scenario: scenario, start: start, speed: 60, activities: run.activities)
        var sink = DeliveringSink(monitor: monitor)
        let now = start + millis
        run.run(until: now, into: &sink)
        monitor.publish(run.activities, now: now)
        return (try #require(monitor.cards(now: now, device: { _ in nil }).first), run.activities[0])
    }

    @Test func theCardShowsTheStoryClockBesideThePushTheDeviceShows() throws {
        // 23.1 s of real time: +23:06 of the story, 13 minutes after kick-off.
        let (card, engine) = try card(after: 23_100)
        let clock = try #require(card.clock)
        #expect(clock.hasPrefix("+23:06 at 60× · the device shows the push of +"), "\(clock)")
        // The minute ticks every story minute (a real second) but a push goes out at most once a
        // min-interval in real time: the device is behind the story, and the card says so.
        #expect(engine.beatCount > engine.pushCount)
        let why = try #require(card.why)
        #expect(
            why.hasPrefix(
                "\(engine.beatCount) beats in \(engine.pushCount) pushes: at 60× min-interval (15s) and the budget (12 p10/h) keep real time"
            ), "\(why)")
        let lines = card.render(width: 110, color: false)
        #expect(lines.contains { $0.hasPrefix("│ story  +23:06 at 60×") })
        #expect(lines.contains { $0.hasPrefix("│ why    ") })
    }

    @Test func aHeldChangeSaysWhatItWaitsForAndTheNextBeatIsNotInZeroSeconds() throws {
        let (card, engine) = try card(after: 23_100)
        let held = try #require(engine.heldPush, "at +23:06 the minute ticks wait for min-interval")
        let text = try #require(card.held)
        #expect(
            text.contains(
                "\(held.merged == 1 ? "1 change waits" : "\(held.merged) changes wait") for min-interval 15s after the last push: sent at +"
            ), "\(text)")
        // The next minute is under a second away in real time: said so, not rounded down to "in 0s".
        let next = try #require(card.next)
        #expect(next.hasPrefix("first-half-minute #14 at +24:"), "\(next)")
        #expect(next.wholeMatch(of: /.*, in 0\.\ds/) != nil, "\(next)")
    }
}
