import Liveline
import Testing

/// Each engine rule, played under the virtual clock. Times are seconds after `testStart`.
@Suite struct EngineTests {
    @Test func lowPriorityBeatsWithinMinIntervalCoalesceNewestStateWinning() throws {
        let run = try plan(
            scenario(
                policy: "min-interval: 15s",
                beats: """
                    - { id: a, at: 0, set: { score: 1 } }
                    - { id: b, at: 5s, set: { score: 2 } }
                    - { id: c, at: 10s, set: { score: 3, phase: late } }
                    - { at: 1m, end: true }
                    """))
        #expect(run.pushes.map(\.offset) == [0, 15, 60])
        #expect(run.pushes[1].reason.description == "coalesced 2 beats, last c · held 10s")
        #expect(run.pushes[1].reason.merged == 2)
        let state = try #require(run.pushes[1].aps["content-state"])
        #expect(state == .object(StateObject([("score", .int(3)), ("phase", .string("late"))])))
    }

    @Test func highPriorityBeatsGoAtOnceCarryingWhatWaited() throws {
        let run = try plan(
            scenario(
                policy: "min-interval: 15s",
                beats: """
                    - { id: a, at: 0, set: { score: 1 } }
                    - { id: b, at: 5s, set: { phase: mid } }
                    - { id: goal, at: 7s, priority: high, set: { score: 2 } }
                    - { at: 1m, end: true }
                    """))
        #expect(run.pushes.map(\.offset) == [0, 7, 60])
        #expect(run.pushes[1].priority == .high)
        #expect(run.pushes[1].reason.description == "coalesced 2 beats, last goal · budget 11/12")
        #expect(run.entries[1].state == StateObject([("score", .int(2)), ("phase", .string("mid"))]))
    }

    @Test func timestampsStrictlyIncreaseAndTwoPushesNeverShareASecond() throws {
        let run = try plan(
            scenario(
                policy: "min-interval: 0",
                beats: """
                    - { id: a, at: 1200ms, priority: high, set: { score: 1 } }
                    - { id: b, at: 1700ms, priority: high, set: { score: 2 } }
                    - { id: c, at: 1900ms, priority: high, set: { score: 3 } }
                    - { at: 1m, end: true }
                    """))
        let timestamps = run.pushes.map(\.timestamp)
        #expect(timestamps == [testStart / 1000 + 1, testStart / 1000 + 2, testStart / 1000 + 60])
        #expect(run.pushes[1].reason.merged == 2)
        #expect(run.pushes[1].time == testStart + 2000)
        #expect(run.entries[1].state.int("score") == 3)
    }

    @Test func highBeatsOverTheBudgetAreDowngraded() throws {
        let run = try plan(
            scenario(
                policy: "budget: 2",
                beats: """
                    - { id: g1, at: 1m, priority: high, set: { score: 1 } }
                    - { id: g2, at: 2m, priority: high, set: { score: 2 } }
                    - { id: g3, at: 3m, priority: high, set: { score: 3 } }
                    - { id: final, at: 4m, end: true }
                    """))
        #expect(run.pushes.map(\.priority) == [.high, .high, .low, .low])
        #expect(
            run.pushes.map { $0.reason.description } == [
                "beat g1 · budget 1/2", "beat g2 · budget 0/2", "beat g3 · downgraded: budget 0/2", "beat final",
            ])
    }

    @Test func theBudgetRefillsOverTheHour() throws {
        let run = try plan(
            scenario(
                policy: "budget: 1",
                beats: """
                    - { id: g1, at: 0, priority: high, set: { score: 1 } }
                    - { id: g2, at: 59m, priority: high, set: { score: 2 } }
                    - { id: g3, at: 1h, priority: high, set: { score: 3 } }
                    - { at: 1h30m, end: true }
                    """))
        #expect(run.pushes.first { $0.reason.beat == "g2" }?.priority == .low)
        #expect(run.pushes.first { $0.reason.beat == "g3" }?.priority == .high)
    }

    @Test func deferredBeatsWaitForATokenAndCarryNewerState() throws {
        let run = try plan(
            scenario(
                policy: "budget: 2\nover-budget: defer\nstale-after: 2h",
                beats: """
                    - { id: g1, at: 1m, priority: high, set: { score: 1 } }
                    - { id: g2, at: 2m, priority: high, set: { score: 2 } }
                    - { id: g3, at: 3m, priority: high, set: { score: 3 } }
                    - { id: tick, at: 4m, set: { phase: later } }
                    - { at: 50m, end: true }
                    """))
        var bucket = BudgetBucket(perHour: 2, now: testStart)
        _ = bucket.spend(at: testStart + 60_000)
        _ = bucket.spend(at: testStart + 120_000)
        let next = bucket.nextToken(after: testStart + 180_000)
        let token = try #require(next)
        #expect(run.pushes.map(\.time) == [testStart + 60_000, testStart + 120_000, token, testStart + 3_000_000])
        let deferred = run.pushes[2]
        #expect(deferred.priority == .high)
        #expect(deferred.reason.merged == 2)
        #expect(deferred.reason.description.hasPrefix("coalesced 2 beats, last tick · deferred 2"))
        #expect(run.entries[2].state == StateObject([("score", .int(3)), ("phase", .string("later"))]))
    }

    @Test func aDeferredBeatIsDowngradedRatherThanLetTheActivityGoStale() throws {
        let run = try plan(
            scenario(
                policy: "budget: 1\nover-budget: defer\nstale-after: 10m",
                beats: """
                    - { id: g1, at: 1m, priority: high, set: { score: 1 } }
                    - { id: g2, at: 2m, priority: high, set: { score: 2 } }
                    - { at: 20m, end: true }
                    """))
        let g2 = try #require(run.pushes.first { $0.reason.beat == "g2" })
        #expect(g2.priority == .low)
        #expect(g2.reason.description == "beat g2 · downgraded: budget 0/1")
    }

    @Test func everyPushCarriesAStaleDateAndQuietStretchesGetHeartbeats() throws {
        let run = try plan(
            scenario(
                policy: "stale-after: 10m\nheartbeat: 1m",
                beats: """
                    - { id: a, at: 1m, set: { score: 1 } }
                    - { at: 30m, end: true }
                    """))
        #expect(run.pushes.map(\.offset) == [60, 600, 1140, 1680, 1800])
        for push in run.pushes {
            #expect(push.aps["stale-date"] == .int(Int(push.timestamp) + 600))
        }
        #expect(run.pushes[1].reason.kind == .heartbeat)
        #expect(run.pushes[1].reason.description == "heartbeat: stale in 1m")
        #expect(run.pushes[1].priority == .low)
        #expect(run.pushes[1].aps["content-state"] == run.pushes[0].aps["content-state"])
    }

    @Test func staleAfterNoneSendsNoStaleDateAndNoHeartbeats() throws {
        let run = try plan(
            scenario(
                policy: "stale-after: none",
                beats: """
                    - { id: a, at: 1m, set: { score: 1 } }
                    - { at: 2h, end: true }
                    """))
        #expect(run.pushes.count == 2)
        #expect(run.pushes.allSatisfy { $0.aps["stale-date"] == nil })
    }

    @Test func aBeatCanChangeStaleAfterFromThenOn() throws {
        let run = try plan(
            scenario(
                policy: "stale-after: 10m",
                beats: """
                    - { id: a, at: 1m, set: { score: 1 }, stale-after: 2m }
                    - { at: 10m, end: true }
                    """))
        #expect(run.pushes[0].aps["stale-date"] == .int(Int(run.pushes[0].timestamp) + 120))
        #expect(run.pushes[1].offset == 120)
    }

    @Test func onceSetEveryPushCarriesTheRelevance() throws {
        let run = try plan(
            scenario(
                beats: """
                    - { id: a, at: 1m, set: { score: 1 } }
                    - { id: b, at: 2m, relevance: 80 }
                    - { id: c, at: 3m, set: { score: 2 } }
                    - { at: 4m, end: true }
                    """))
        #expect(run.pushes.map { $0.aps["relevance-score"] } == [nil, .int(80), .int(80), .int(80)])
    }

    @Test(
        "the end carries the policy's dismissal-date",
        arguments: [
            ("default", nil), ("immediate", -1), ("15m", 900),
        ] as [(String, Int?)])
    func endDismissal(dismissal: String, offset: Int?) throws {
        let run = try plan(
            scenario(
                policy: "dismissal: \(dismissal)",
                beats: """
                    - { id: final, at: 1m, set: { phase: over }, end: true }
                    """))
        let end = try #require(run.pushes.last)
        #expect(end.event == .end)
        #expect(end.aps["event"] == .string("end"))
        #expect(end.aps["dismissal-date"] == offset.map { .int(Int(end.timestamp) + $0) })
        #expect(run.entries.last?.lifecycle == .ended)
    }

    @Test func anEndBeatsDismissalOverridesThePolicy() throws {
        let run = try plan(scenario(policy: "dismissal: 15m", beats: "- { at: 1m, end: { dismissal: immediate } }"))
        #expect(run.pushes.last?.aps["dismissal-date"] == .int(Int(testStart / 1000) + 59))
    }

    @Test func nothingIsSentAfterTheEnd() throws {
        var run = ScenarioRun(
            scenario: try load(
                scenario(
                    beats: """
                        - { id: late, set: { score: 9 } }
                        - { at: 1m, end: true }
                        """)
            ).scenario, start: testStart)
        var sink = Collector()
        run.run(into: &sink)
        let outcome = run.trigger("late", activity: 0, input: nil, at: testStart + 120_000, into: &sink)
        run.run(into: &sink)
        #expect(outcome == .ended)
        #expect(sink.pushes.count == 1)
        #expect(run.nextDeadline() == nil)
    }

    /// A caller that buffers pushes takes what is due a slice at a time (a million activities
    /// can share one instant); the slices add up to exactly the run played in one go.
    @Test func playingInSlicesGivesTheSamePushesInTheSameOrder() throws {
        let orders = (0..<5).map { n in
            """
              - name: order-\(n)
                attributes-type: OrderAttributes
                content-state: { minute: 0 }
                beats:
                  - { id: tick, every: 1m, count: 4, set: { minute: "{{ n }}" } }
                  - { id: done, at: 5m, end: true }
            """
        }
        let yaml = """
            liveline: 1
            bundle-id: com.example.test
            policy: { min-interval: 0, stale-after: 10m }
            activities:
            \(orders.joined(separator: "\n"))
            """
        let scenario = try load(yaml).scenario
        var whole = ScenarioRun(scenario: scenario, start: testStart)
        var expected = Collector()
        whole.run(into: &expected)

        var sliced = ScenarioRun(scenario: scenario, start: testStart)
        var collected = Collector()
        var calls = 0
        while let deadline = sliced.nextDeadline() {
            let woken = sliced.run(until: deadline, wakingAtMost: 2, into: &collected)
            #expect(woken >= 1 && woken <= 2)
            calls += 1
        }
        let key = { (push: Push) in
            "\(push.activity)/\(push.sequence)/\(push.time)/" + String(decoding: push.payload, as: UTF8.self)
        }
        #expect(collected.pushes.count == 25)
        #expect(collected.pushes.map(key) == expected.pushes.map(key))
        #expect(calls > 5 * 5 / 2, "five activities share each deadline, so each instant took several slices")
    }

    @Test func anActivityThatReachesEightHoursIsEndedByTheEngine() throws {
        let run = try plan(
            scenario(policy: "stale-after: none", beats: "- { id: tick, every: 1h, set: { score: \"{{ n }}\" } }"))
        let end = try #require(run.pushes.last)
        #expect(end.event == .end)
        #expect(end.time == testStart + 8 * 3_600_000)
        #expect(end.reason.kind == .reachedMaxDuration)
        #expect(end.reason.description == "ended: reached max-duration")
        #expect(run.pushes.filter { $0.event == .update }.count == 7)
    }

    @Test func aPayloadOverTheLimitIsRejectedNotSent() throws {
        let scenario = try load(
            scenario(
                beats: """
                    - { id: small, at: 1m, set: { phase: a } }
                    - { id: big, at: 2m, set: { phase: "\(String(repeating: "x", count: 300))" } }
                    - { at: 3m, end: true }
                    """)
        ).scenario
        var run = ScenarioRun(scenario: scenario, start: testStart, payloadLimit: 300)
        var sink = Collector()
        run.run(into: &sink)
        #expect(sink.pushes.map { $0.reason.beat } == ["small"])
        #expect(sink.rejected.count == 2)
        #expect(sink.rejected.first?.problem.description.hasSuffix("over APNs's limit of 300") == true)
    }

    @Test func aStartPushCarriesAttributesAlertAndInputs() throws {
        let run = try plan(
            scenario(
                state: "{ score: 0, kickoff: !date +5m }",
                beats: """
                    - at: 0
                      start: { input-push-token: true }
                      alert: { title: "Starting", body: "A v B" }
                    - { id: ko, at: 5m, set: { score: 1 } }
                    - { at: 6m, end: true }
                    """))
        let start = try #require(run.pushes.first)
        #expect(start.event == .start)
        #expect(start.priority == .high)
        let aps = start.aps
        #expect(aps["event"] == .string("start"))
        #expect(aps["attributes-type"] == .string("MatchAttributes"))
        #expect(aps["attributes"] == .object(StateObject([("home", .string("A")), ("away", .string("B"))])))
        #expect(aps["input-push-token"] == .int(1))
        #expect(aps["alert"] == .object(StateObject([("title", .string("Starting")), ("body", .string("A v B"))])))
        #expect(aps["content-state"] == .object(StateObject([("score", .int(0)), ("kickoff", .int(817_157_100))])))
        #expect(run.pushes.dropFirst().allSatisfy { $0.aps["attributes"] == nil && $0.aps["attributes-type"] == nil })
    }

    @Test func beforeItsStartPushAnActivityIsPending() throws {
        let loaded = try load(
            scenario(
                beats: """
                    - at: 10m
                      start: { input-push-channel: "P5ocAtToW3dhrAny47TF1g==" }
                      alert: { title: Go }
                    - { at: 20m, end: true }
                    """))
        var run = ScenarioRun(scenario: loaded.scenario, start: testStart)
        var sink = Collector()
        run.run(until: testStart + 9 * 60_000, into: &sink)
        #expect(run.activities[0].lifecycle == .pending)
        #expect(sink.pushes.isEmpty)
        run.run(into: &sink)
        #expect(sink.pushes.first?.aps["input-push-channel"] == .string("P5ocAtToW3dhrAny47TF1g=="))
    }

    @Test func aBeatThatChangesNothingSendsNothing() throws {
        let run = try plan(
            scenario(
                beats: """
                    - { id: a, at: 1m, set: { score: 1 } }
                    - { id: same, at: 2m, set: { score: 1 } }
                    - { id: final, at: 3m, end: true }
                    """))
        #expect(run.pushes.map { $0.reason.beat } == ["a", "final"])
    }

    @Test func theExpirationHeaderFollowsThePolicy() throws {
        let hour = try plan(scenario(beats: "- { id: a, at: 1m, set: { score: 1 }, end: true }"))
        #expect(hour.pushes[0].expiration == hour.pushes[0].timestamp + 3600)
        let never = try plan(
            scenario(policy: "expiration: 0", beats: "- { id: a, at: 1m, set: { score: 1 }, end: true }"))
        #expect(never.pushes[0].expiration == 0)
    }
}
