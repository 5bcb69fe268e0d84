import Liveline
import Testing

/// Renewal under the virtual clock: a story longer than the system's 8 hours on one activity.
@Suite struct RenewalTests {
    /// A 20-hour story started by push: a tick every 10 minutes, a goal at 16h, the end at 20h.
    static func longStory(renew: String = "{ before: 7h30m }", extra: String = "") -> String {
        """
        liveline: 1
        name: Test day
        bundle-id: com.example.test
        policy:
          stale-after: 30m
          heartbeat: 1m
          renew: \(renew)
        \(extra)
        activities:
          - name: day
            attributes-type: MatchAttributes
            attributes: { home: A, away: B }
            content-state: { over: 0, runs: 0 }
            relevance: 50
            beats:
              - { at: 0, start: { input-push-token: true }, alert: { title: "Play starts", sound: default } }
              - { id: over, every: 10m, to: 19h50m, set: { over: "{{ n }}", runs: "{{ state.runs + 4 }}" } }
              - { id: six, at: 16h, priority: high, set: { runs: "{{ state.runs + 6 }}" }, alert: { title: "Six!", sound: default } }
              - { id: stumps, at: 20h, end: true }
        """
    }

    @Test func aTwentyHourStoryRenewsTwiceAndNoActivityReachesTheLimit() throws {
        let run = try plan(Self.longStory())
        let pushes = run.pushes
        let renewalStarts = pushes.filter { $0.reason.kind == .renewalStart }
        let renewalEnds = pushes.filter { $0.reason.kind == .renewalEnd }
        let renewalTimes: [Millis] = [27000, 54000]
        #expect(renewalStarts.map(\.offset) == renewalTimes)
        #expect(renewalEnds.map(\.offset) == renewalStarts.map(\.offset))
        #expect(!pushes.contains { $0.reason.kind == .reachedMaxDuration || $0.reason.kind == .reachedStoryLimit })
        #expect(pushes.last?.reason.description == "beat stumps")
        #expect(pushes.last?.generation == 2)

        for (number, start) in renewalStarts.enumerated() {
            let index = try #require(pushes.firstIndex { $0.sequence == start.sequence })
            let end = pushes[index + 1]
            // The successor's start comes first, then the predecessor's end, with one timestamp.
            #expect(start.event == .start && end.event == .end)
            #expect(start.timestamp == end.timestamp && start.timestamp > pushes[index - 1].timestamp)
            #expect(start.generation == number + 1 && end.generation == number)
            #expect(start.reason.description.hasPrefix("renewal #\(number + 1): successor starts"))
            #expect(end.reason.description.hasPrefix("renewal #\(number + 1): predecessor ends"))
            // Both carry the current state: the over that falls at the same instant is absorbed.
            let over = 45 * (number + 1)
            #expect(
                start.aps["content-state"] == .object(StateObject([("over", .int(over)), ("runs", .int(4 * over))])))
            #expect(!pushes.contains { $0.time == start.time && $0.reason.kind == .beat })
            #expect(end.aps["content-state"] == start.aps["content-state"])
            #expect(start.aps["relevance-score"] == .int(50) && start.aps["stale-date"] != nil)
            // The start is a start, with a quiet alert: the scenario's name, no sound, nothing repeated.
            #expect(start.aps["attributes-type"] == .string("MatchAttributes"))
            #expect(start.aps["input-push-token"] == .int(1))
            #expect(start.aps["alert"] == .object(StateObject([("title", .string("Test day"))])))
            #expect(start.priority == .high)
            // The end leaves the screen at once.
            #expect(end.aps["dismissal-date"] == .int(Int(end.timestamp - 1)))
            #expect(end.aps["alert"] == nil)
            // What follows is for the successor.
            #expect(pushes[index + 2].generation == number + 1)
            #expect(pushes[index + 2].timestamp > start.timestamp)
        }
        // The successor's budget is its own: the six at 16h is charged to it.
        let six = try #require(pushes.first { $0.reason.beat == "six" })
        #expect(six.priority == .high && six.generation == 2)
    }

    @Test func withoutAnEndTheStoryStopsAtUntil() throws {
        let yaml = Self.longStory(renew: "{ before: 7h30m, until: 10h }")
            .replacingOccurrences(of: "to: 19h50m", with: "to: 9h50m")
            .replacingOccurrences(
                of:
                    "      - { id: six, at: 16h, priority: high, set: { runs: \"{{ state.runs + 6 }}\" }, alert: { title: \"Six!\", sound: default } }\n",
                with: ""
            )
            .replacingOccurrences(of: "      - { id: stumps, at: 20h, end: true }", with: "")
        let loaded = try load(yaml)
        #expect(loaded.warnings.contains { $0.message.contains("the engine will end it at 10h (renew's until)") })
        let run = try plan(yaml)
        #expect(run.pushes.filter { $0.reason.kind == .renewalStart }.map(\.offset) == [27000])
        let last = try #require(run.pushes.last)
        #expect(last.offset == 10 * 3600 && last.event == .end && last.reason.kind == .reachedStoryLimit)
        #expect(last.reason.description == "ended: reached renew until")
    }

    @Test func anActivityTheAppStartedRenewsByInputPushToken() throws {
        let yaml = Self.longStory(
            renew: "{ before: 2h, until: 5h, alert: { title: \"{{ state.runs }} runs\", body: \"Still live\" } }"
        )
        .replacingOccurrences(
            of:
                "      - { at: 0, start: { input-push-token: true }, alert: { title: \"Play starts\", sound: default } }\n",
            with: ""
        )
        .replacingOccurrences(of: "to: 19h50m", with: "to: 4h50m")
        .replacingOccurrences(
            of:
                "      - { id: six, at: 16h, priority: high, set: { runs: \"{{ state.runs + 6 }}\" }, alert: { title: \"Six!\", sound: default } }\n",
            with: ""
        )
        .replacingOccurrences(of: "at: 20h, end: true", with: "at: 5h, end: true")
        let loaded = try load(yaml)
        #expect(
            loaded.warnings.contains {
                $0.message.contains("is started by the app: its renewals go to a push-to-start token")
            })
        let run = try plan(yaml)
        let starts = run.pushes.filter { $0.reason.kind == .renewalStart }
        #expect(starts.map(\.offset) == [7200, 14400])
        #expect(starts[0].aps["input-push-token"] == .int(1))
        #expect(
            starts[0].aps["alert"]
                == .object(StateObject([("title", .string("48 runs")), ("body", .string("Still live"))])))
    }

    @Test func renewalFollowsTheStoryClockAtSpeed() throws {
        let scenario = try load(Self.longStory()).scenario
        var run = ScenarioRun(scenario: scenario, start: testStart, speed: 3600)
        var collector = Collector()
        run.run(into: &collector)
        let starts = collector.pushes.filter { $0.reason.kind == .renewalStart }
        #expect(
            starts.map { $0.time - testStart } == [7500, 15000],
            "\(collector.pushes.map { ($0.time - testStart, $0.reason.description) })")
        #expect(collector.pushes.last?.event == .end && collector.pushes.last?.generation == 2)
    }

    @Test func aRenewingEngineResumesFromItsSnapshotExactly() throws {
        let scenario = try load(Self.longStory()).scenario
        let program = ActivityProgram(scenario.activities[0], index: 0, scenarioSeed: scenario.seed)
        var whole = ActivityEngine(program: program, id: 0, scenarioStart: testStart)
        var writer = JSONWriter()
        var wholeSink = Collector()
        whole.advance(to: testStart + 30 * 3_600_000, writer: &writer, sink: &wholeSink)

        var first = ActivityEngine(program: program, id: 0, scenarioStart: testStart)
        var sink = Collector()
        first.advance(to: testStart + 8 * 3_600_000, writer: &writer, sink: &sink)
        #expect(first.renewals == 1)
        var bytes = CompactWriter()
        first.snapshot.write(to: &bytes)
        var reader = CompactReader(bytes.bytes)
        var resumed = try ActivityEngine(program: program, snapshot: try ActivityEngine.Snapshot(reading: &reader))
        #expect(resumed.renewals == 1)
        resumed.advance(to: testStart + 30 * 3_600_000, writer: &writer, sink: &sink)
        #expect(sink.pushes.map(\.payload) == wholeSink.pushes.map(\.payload))
        #expect(sink.pushes.map(\.generation) == wholeSink.pushes.map(\.generation))
    }

    @Test func aSnapshotFromBeforeRenewalsResumesAsNeverRenewed() throws {
        let scenario = try load(Self.longStory()).scenario
        let program = ActivityProgram(scenario.activities[0], index: 0, scenarioSeed: scenario.seed)
        var engine = ActivityEngine(program: program, id: 0, scenarioStart: testStart)
        var writer = JSONWriter()
        var sink = Collector()
        engine.advance(to: testStart + 3_600_000, writer: &writer, sink: &sink)
        var current = CompactWriter()
        engine.snapshot.write(to: &current)
        // Version 2's layout: version 3's without the renewal's three fields at the end.
        var version = CompactWriter()
        version.int(ActivityEngine.Snapshot.currentVersion)
        var trailer = CompactWriter()
        trailer.int(0)
        trailer.int(Millis.max)
        trailer.int(Millis.max)
        var old = CompactWriter()
        old.int(2)
        let body = current.bytes.dropFirst(version.bytes.count).dropLast(trailer.bytes.count)
        var reader = CompactReader(old.bytes + Array(body))
        var resumed = try ActivityEngine(program: program, snapshot: try ActivityEngine.Snapshot(reading: &reader))
        #expect(resumed.renewals == 0)
        var rest = Collector()
        var whole = Collector()
        resumed.advance(to: testStart + 30 * 3_600_000, writer: &writer, sink: &rest)
        engine.advance(to: testStart + 30 * 3_600_000, writer: &writer, sink: &whole)
        #expect(rest.pushes.map(\.payload) == whole.pushes.map(\.payload))
        #expect(rest.pushes.filter { $0.reason.kind == .renewalStart }.count == 2)
    }

    @Test func aKeyOwnRenewalOverridesTheScenarios() throws {
        let scenario = try load(Self.longStory()).scenario
        let program = ActivityProgram(scenario.activities[0], index: 0, scenarioSeed: scenario.seed)
        var engine = ActivityEngine(program: program, id: 0, scenarioStart: testStart)
        engine.renewal = Renewal(before: 5 * 3_600_000)
        var writer = JSONWriter()
        var sink = Collector()
        engine.advance(to: testStart + 30 * 3_600_000, writer: &writer, sink: &sink)
        #expect(sink.pushes.filter { $0.reason.kind == .renewalStart }.map(\.offset) == [18000, 36000, 54000])
        // Without an alert of its own, the successor's start names the activity.
        #expect(
            sink.pushes.first { $0.reason.kind == .renewalStart }?.aps["alert"]
                == .object(StateObject([("title", .string("day"))])))
    }

    @Test(arguments: [
        ("{ before: 30m }", 7, 10, "too soon"),
        ("{ before: 7h59m30s }", 7, 10, "is not under max-duration (8h)"),
        ("{ before: 7h30m, until: 7h }", 7, 10, "is not after before"),
        ("{ before: 7h30m, until: 800h }", 7, 10, "longer than 720h"),
        ("{ before: 7h30m, alert: { title: Go, sound: default } }", 7, 47, "takes no sound"),
        ("{ befor: 7h30m }", 7, 12, "did you mean 'before'?"),
        ("7h30m", 7, 10, "expected renew as a mapping"),
    ])
    func aBadRenewIsLocated(renew: String, line: Int, column: Int, fragment: String) {
        let found = errors(Self.longStory(renew: renew), file: "bad.yaml")
        #expect(found.contains { $0.message.contains(fragment) }, "\(found)")
        let error = found.first { $0.message.contains(fragment) }
        #expect(error?.location.line == line && error?.location.column == column, "\(String(describing: error))")
    }

    @Test func aRenewAgainstAShortMaxDurationIsCheckedAgainstIt() {
        let found = errors(Self.longStory(renew: "{ before: 2h }", extra: "  max-duration: 2h"), file: "bad.yaml")
        #expect(found.contains { $0.message.contains("is not under max-duration (2h)") }, "\(found)")
    }

    @Test func anEndAfterUntilAndAChannelStartAreRefused() {
        let late = errors(Self.longStory(renew: "{ before: 7h30m, until: 18h }"), file: "bad.yaml")
        #expect(late.contains { $0.message.contains("the end at 20h is after 18h (renew's until)") }, "\(late)")
        let channel = errors(
            Self.longStory().replacingOccurrences(
                of: "start: { input-push-token: true }",
                with: "start: { input-push-channel: \"P5ocAtToW3dhrAny47TF1g==\" }"),
            file: "bad.yaml")
        #expect(
            channel.contains { $0.message.contains("starts with input-push-channel, so it cannot renew") }, "\(channel)"
        )
        // Without renew, the same story is too long for one activity, and the error says how to go on.
        let long = errors(Self.longStory(renew: "none"), file: "bad.yaml")
        #expect(long.contains { $0.message.contains("or renew (renew: {before: 7h30m})") }, "\(long)")
    }
}

extension StateObject {
    /// The object as a value, to compare with a parsed payload's.
    var asValue: StateValue { .object(self) }
}
