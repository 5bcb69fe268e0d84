import Liveline
import Testing

/// Repeating beats, jitter, chance, seeds, templates and the scheduler.
@Suite struct TimelineTests {
    static let ticking = scenario(
        policy: "min-interval: 0",
        beats: """
            - { id: tick, every: 1m, from: 1m, to: 5m, set: { score: "{{ n * 10 }}", phase: "minute {{ minute }}" } }
            - { id: final, at: 6m, end: true }
            """)

    @Test func repeatingBeatsCountTheirOccurrences() throws {
        let run = try plan(Self.ticking)
        #expect(run.pushes.map(\.offset) == [60, 120, 180, 240, 300, 360])
        #expect(run.entries.prefix(5).map { $0.state.int("score") } == [10, 20, 30, 40, 50])
        #expect(run.entries[2].state["phase"] == .string("minute 3"))
        #expect(run.pushes[2].reason.description == "beat tick #3")
    }

    @Test func countBoundsARepeatingBeat() throws {
        let run = try plan(
            scenario(
                policy: "min-interval: 0",
                beats: """
                    - { id: tick, every: 30s, count: 3, set: { score: "{{ n }}" } }
                    - { id: final, at: 5m, end: true }
                    """))
        #expect(run.pushes.map(\.offset) == [30, 60, 90, 300])
    }

    @Test func aRepeatingBeatWithoutAnEndOfItsOwnStopsAtTheActivityEnd() throws {
        let run = try plan(
            scenario(
                policy: "min-interval: 0",
                beats: """
                    - { id: tick, every: 1m, set: { score: "{{ n }}" } }
                    - { id: final, at: 3m30s, end: true }
                    """))
        #expect(run.pushes.map(\.offset) == [60, 120, 180, 210])
    }

    @Test func aBeatThatWouldRepeatPastTheLimitIsRefusedWithItsCount() {
        let found = errors(
            scenario(
                beats: """
                    - { id: tick, every: 10ms, set: { score: "{{ n }}" } }
                    """))
        #expect(found.count == 1)
        let message = found.first?.message ?? ""
        #expect(message.contains("2879999 occurrences, more than the 1000000 a beat may have"), "\(message)")
        #expect(found.first?.location.line == 14)
    }

    @Test func occurrencesAreCountedToTheLimitInclusive() {
        let beat = BeatSpec(
            id: "tick", timing: .every(10, from: 0, through: 9_999_990),
            location: SourceLocation(file: "t", line: 1, column: 1))
        #expect(beat.occurrenceCount(end: 28_800_000) == BeatSpec.maxOccurrences)
        let open = BeatSpec(
            id: "tick", timing: .every(60_000, from: 60_000, through: nil),
            location: SourceLocation(file: "t", line: 1, column: 1))
        #expect(open.occurrenceCount(end: 210_000) == 3)
    }

    static let jittery = scenario(
        policy: "min-interval: 0",
        beats: """
            - { id: a, at: 10m, jitter: 2m, set: { score: 1 } }
            - { id: b, at: 10m30s, jitter: 2m, set: { score: 2 } }
            - { id: maybe, at: 20m, chance: 0.5, set: { phase: lucky } }
            - { id: final, at: 30m, end: true }
            """)

    @Test func jitterIsSeededKeepsOrderAndStaysInBounds() throws {
        let first = try plan(Self.jittery, seed: 1)
        let again = try plan(Self.jittery, seed: 1)
        #expect(first.pushes.map(\.time) == again.pushes.map(\.time))
        #expect(first.pushes.map(\.payload) == again.pushes.map(\.payload))
        var seen: Set<[Millis]> = []
        for seed: UInt64 in 1...40 {
            let run = try plan(Self.jittery, seed: seed)
            // a and b may land in the same second and go as one push; either way a goes first.
            let first = try #require(run.pushes.first)
            #expect(abs(first.time - testStart - 600_000) <= 120_000)
            #expect(first.reason.beat == "a" || first.reason.merged == 2)
            #expect(run.entries.first?.state.int("score") == (first.reason.merged == 2 ? 2 : 1))
            seen.insert(run.pushes.map(\.time))
        }
        #expect(seen.count > 20)
    }

    @Test func chanceIsSeededAndRoughlyFair() throws {
        var happened = 0
        for seed: UInt64 in 1...200 {
            let run = try plan(Self.jittery, seed: seed)
            if run.pushes.contains(where: { $0.reason.beat == "maybe" }) { happened += 1 }
        }
        #expect((70...130).contains(happened))
    }

    @Test func copiesOfOneActivityDifferYetReplayIdentically() throws {
        let scenario = try load(Self.jittery).scenario
        let program = ActivityProgram(scenario.activities[0], index: 0, scenarioSeed: 9)
        func copies() -> [Push] {
            var run = ScenarioRun(
                activities: (0..<20).map {
                    ActivityEngine(program: program, id: $0, copy: $0, scenarioStart: testStart)
                })
            var sink = Collector()
            run.run(into: &sink)
            return sink.pushes
        }
        let a = copies(), b = copies()
        #expect(a.map(\.payload) == b.map(\.payload))
        let firstTimes = Set(a.filter { $0.reason.beat == "a" }.map(\.time))
        #expect(firstTimes.count > 10)
    }

    @Test func seededFunctionsAreDeterministicPerOccurrence() throws {
        let yaml = scenario(
            state: "{ score: 0, phase: pre }",
            beats: """
                - { id: r, every: 1m, count: 20, set: { score: "{{ random(1, 6) }}", phase: '{{ pick("x", "y", "z") }}' } }
                - { id: final, at: 30m, end: true }
                """)
        let a = try plan(yaml), b = try plan(yaml)
        #expect(a.entries.map(\.state) == b.entries.map(\.state))
        let scores = a.entries.compactMap { $0.state.int("score") }
        #expect(scores.allSatisfy { (1...6).contains($0) })
        #expect(Set(scores).count > 2)
    }

    @Test func stateTemplatesSeeTheStateBeforeTheBeat() throws {
        let run = try plan(
            scenario(
                state: "{ score: 0, phase: pre }",
                beats: """
                    - { id: g1, at: 1m, set: { score: "{{ state.score + 1 }}", phase: "was {{ state.score }}" } }
                    - { id: g2, at: 2m, set: { score: "{{ state.score + 1 }}" }, alert: { title: "now {{ state.score }}" } }
                    - { id: final, at: 3m, end: true }
                    """))
        #expect(run.entries[0].state == StateObject([("score", .int(1)), ("phase", .string("was 0"))]))
        #expect(run.entries[1].state.int("score") == 2)
        #expect(run.pushes[1].aps["alert"] == .object(StateObject([("title", .string("now 2"))])))
    }

    @Test func datesAreRelativeToTheBeatOrTheStart() throws {
        let run = try plan(
            scenario(
                state: "{ eta: !date +30m, window: !daterange [+0m, start+1h], fixed: !date 2001-01-01T00:01:00Z }",
                beats: """
                    - { id: later, at: 10m, set: { eta: !date +5m } }
                    - { id: final, at: 20m, end: true }
                    """))
        let reference = (testStart / 1000) - 978_307_200
        let first = try #require(run.pushes.first?.aps["content-state"])
        #expect(
            first
                == .object(
                    StateObject([
                        ("eta", .int(Int(reference + 900))),
                        ("window", .array([.int(Int(reference)), .int(Int(reference + 3600))])), ("fixed", .int(60)),
                    ])))
    }

    @Test func triggeredBeatsReadTheirInput() throws {
        let scenario = try load(
            scenario(
                state: "{ score: 0, phase: pre }",
                beats: """
                    - { id: note, set: { phase: "Courier: {{ input.note }}" } }
                    - { id: final, at: 1h, end: true }
                    """)
        ).scenario
        var run = ScenarioRun(scenario: scenario, start: testStart)
        var sink = Collector()
        run.run(until: testStart + 60_000, into: &sink)
        let input = StateValue.object(StateObject([("note", .string("at the door"))]))
        #expect(run.trigger("note", activity: 0, input: input, at: testStart + 90_000, into: &sink) == .applied)
        #expect(run.trigger("nope", activity: 0, input: nil, at: testStart + 91_000, into: &sink) == .unknownBeat)
        run.run(into: &sink)
        #expect(sink.entries.first?.state["phase"] == .string("Courier: at the door"))
        #expect(sink.pushes.first?.offset == 90)
    }

    @Test func theSchedulerInterleavesActivitiesInTimeOrder() throws {
        let run = try plan(
            """
            liveline: 1
            policy: { min-interval: 0 }
            activities:
              - name: first
                attributes-type: A
                content-state: { n: 0 }
                beats: [{ id: t, every: 1m, count: 3, set: { n: "{{ n }}" } }, { id: end, at: 4m, end: true }]
              - name: second
                at: 30s
                attributes-type: A
                content-state: { n: 0 }
                beats: [{ id: t, every: 1m, count: 3, set: { n: "{{ n }}" } }, { id: end, at: 4m, end: true }]
            """)
        #expect(run.pushes.map(\.offset) == [60, 90, 120, 150, 180, 210, 240, 270])
        #expect(
            run.entries.map(\.name) == ["first", "second", "first", "second", "first", "second", "first", "second"])
    }

    @Test func theSchedulerKeepsOneLiveEntryPerActivity() {
        var scheduler = Scheduler(activities: 3)
        scheduler.schedule(0, at: 50)
        scheduler.schedule(1, at: 10)
        scheduler.schedule(0, at: 5)
        scheduler.schedule(2, at: 10)
        var order: [Int] = []
        while let (_, activity) = scheduler.popDue(at: 100) { order.append(activity) }
        #expect(order == [0, 1, 2])
        #expect(scheduler.peek() == nil)
    }

    @Test func speedCompressesTheStoryButNotThePolicy() throws {
        let scenario = try load(Self.ticking).scenario
        var run = ScenarioRun(scenario: scenario, start: testStart, speed: 60)
        var sink = Collector()
        run.run(into: &sink)
        #expect(sink.pushes.map(\.offset) == [1, 2, 3, 4, 5, 6])
        // minute counts story time: at 3 real seconds, the story is at minute 3.
        #expect(sink.entries[2].state["phase"] == .string("minute 3"))
    }

    @Test func stoppingEndsActiveActivitiesWithAnImmediateDismissal() throws {
        let scenario = try load(Self.ticking).scenario
        var run = ScenarioRun(scenario: scenario, start: testStart)
        var sink = Collector()
        run.run(until: testStart + 150_000, into: &sink)
        run.stop(at: testStart + 150_000, into: &sink)
        let end = try #require(sink.pushes.last)
        #expect(end.event == .end)
        #expect(end.reason.kind == .stopped)
        #expect(end.aps["dismissal-date"] == .int(Int(end.timestamp) - 1))
        #expect(run.nextDeadline() == nil)
    }
}
