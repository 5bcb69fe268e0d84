import Foundation
import Liveline
import Testing

/// The scenarios in Scenarios/ load, and play out the stories they tell.
@Suite struct ExampleScenarioTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func play(_ name: String) throws -> (Scenario, Collector) {
        let loaded = try ScenarioLoader().load(file: path(name))
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        var run = ScenarioRun(scenario: loaded.scenario, start: testStart)
        var sink = Collector()
        run.run(into: &sink)
        #expect(sink.rejected.isEmpty)
        return (loaded.scenario, sink)
    }

    @Test(
        "every example loads without warnings and ends every activity",
        arguments: [
            "football.yaml", "delivery.yaml", "evening.yaml", "push-to-start.yaml", "overnight-flight.yaml",
        ])
    func exampleLoadsAndEnds(name: String) throws {
        let (scenario, sink) = try Self.play(name)
        let ends = sink.pushes.filter { $0.event == .end && $0.reason.kind != .renewalEnd }
        #expect(ends.count == scenario.activities.count)
        #expect(ends.allSatisfy { $0.reason.kind == .beat })
    }

    @Test func theFootballMatchHasGoalsHalfTimeHeartbeatsAndAFinalScore() throws {
        let (_, sink) = try Self.play("football.yaml")
        let goals = sink.pushes.filter { $0.reason.beat.hasPrefix("goal-") }
        #expect(goals.count == 4)
        #expect(
            goals.allSatisfy {
                $0.priority == .high && $0.aps["alert"] != nil && $0.aps["relevance-score"] == .int(100)
            })
        let halfTime = try #require(sink.pushes.first { $0.reason.beat == "half-time" })
        let secondHalf = try #require(sink.pushes.first { $0.reason.beat == "second-half" })
        let quiet = sink.pushes.filter { $0.time > halfTime.time && $0.time < secondHalf.time }
        #expect(quiet.count >= 3)
        #expect(quiet.allSatisfy { $0.reason.kind == .heartbeat })
        let last = try #require(sink.entries.last)
        #expect(last.state.int("homeScore") == 3)
        #expect(last.state.int("awayScore") == 1)
        #expect(last.push.aps["dismissal-date"] == .int(Int(last.push.timestamp) + 900))
    }

    @Test func theDeliveryCountsDownAnETAAndArrivesAtHighPriority() throws {
        let (_, sink) = try Self.play("delivery.yaml")
        let arriving = try #require(sink.pushes.first { $0.reason.beat == "arriving" })
        #expect(arriving.priority == .high)
        let minutes = sink.entries.compactMap { $0.state.int("minutesLeft") }
        #expect(minutes == minutes.sorted(by: >))
        guard case .object(let state)? = arriving.aps["content-state"], case .int(let eta)? = state["eta"] else {
            Issue.record("the ETA is not a reference-date number")
            return
        }
        // The ETA is two minutes after the beat, in reference-date seconds (not UNIX seconds).
        #expect(Int64(eta) == arriving.timestamp - ReferenceDate.unixOffsetSeconds + 120)
    }

    @Test func pushToStartActivitiesStartWithAnAlertAndInputs() throws {
        let (_, sink) = try Self.play("push-to-start.yaml")
        let starts = sink.pushes.filter { $0.event == .start }
        #expect(starts.count == 2)
        #expect(starts[0].aps["input-push-token"] == .int(1))
        #expect(starts[1].aps["input-push-channel"] == .string("P5ocAtToW3dhrAny47TF1g=="))
        #expect(starts.allSatisfy { $0.aps["alert"] != nil && $0.aps["attributes-type"] == .string("MatchAttributes") })
    }

    @Test func theOvernightFlightRenewsTwiceAndLandsWithOneActivityOnTheDevice() throws {
        let (_, sink) = try Self.play("overnight-flight.yaml")
        let renewals = sink.pushes.filter { $0.reason.kind == .renewalStart }
        #expect(renewals.map { ($0.time - testStart) / 60_000 } == [450, 900])
        #expect(renewals.allSatisfy { $0.aps["alert"] != nil && $0.alert?.sound == nil && $0.priority == .high })
        #expect(
            renewals.first?.aps["alert"]
                == .object(
                    StateObject([
                        ("title", .string("LL 204 to Reykjavik")), ("body", .string("Delayed overnight, gate 54")),
                    ])))
        let landed = try #require(sink.pushes.last)
        #expect(landed.reason.beat == "landed" && landed.generation == 2)
        #expect(!sink.pushes.contains { $0.reason.kind == .reachedMaxDuration })
    }

    @Test func theEveningPlaysFourMatchesSideBySide() throws {
        let (scenario, sink) = try Self.play("evening.yaml")
        #expect(scenario.activities.count == 4)
        let firstPush = Dictionary(grouping: sink.pushes, by: \.activity).mapValues { $0[0].time }
        #expect(firstPush.count == 4)
        #expect(sink.pushes.map(\.time) == sink.pushes.map(\.time).sorted())
    }

    @Test(
        "the deliberately broken examples fail with located errors",
        arguments: [
            ("typo-key.yaml", 14, 5, "did you mean 'attributes-type'?"),
            ("bad-duration.yaml", 19, 13, "found '5 minutes'"),
            ("type-change.yaml", 26, 22, "'homeScore' is an integer"),
        ])
    func brokenExample(name: String, line: Int, column: Int, fragment: String) {
        do {
            _ = try ScenarioLoader().load(file: Self.path("invalid/" + name))
            Issue.record("\(name) loaded")
        } catch {
            let first = error.errors.first
            #expect(first?.location.line == line)
            #expect(first?.location.column == column)
            #expect(first?.message.contains(fragment) == true, "\(error)")
        }
    }
}
