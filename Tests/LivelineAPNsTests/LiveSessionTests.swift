import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import Testing

/// The live session in virtual time: a ``ManualClock`` drives the story, retry back-offs and
/// drain deadlines; pushes go over TLS to the mock, and the tests wait for its answers.
@Suite(.serialized) struct LiveSessionTests {
    /// 70 s of story: a tick every 10 s, a note the courier sends (triggered), delivery at 70 s.
    static let order = """
        liveline: 1
        bundle-id: com.example.matchday
        policy: { min-interval: 0, stale-after: 10m }
        activities:
          - name: order
            attributes-type: OrderAttributes
            content-state: { minute: 0, message: "Order placed", eta: 30 }
            beats:
              - { id: tick, every: 10s, count: 6, set: { minute: "{{ n }}" } }
              - { id: note, set: { message: "Courier: {{ input.note }}" } }
              - { id: done, at: 70s, set: { message: "Delivered" }, end: { dismissal: 10m } }
        """

    struct Setup {
        let mock: MockSession
        let clock: ManualClock
        let start: Millis
        let session: LiveSession
        let probe: SessionProbe
        let token: String
        /// The story's one activity.
        let order: LiveSession.Activity
    }

    /// A session over `order` on a manual clock standing a second before the story starts.
    static func setup(
        token seed: Int, target: Bool = true,
        retry: RetryPolicy = RetryPolicy(base: .seconds(1), cap: .seconds(1), maxAttempts: 5),
        configuration: LiveSession.Configuration = .init(), faults: FaultPlan = .none
    ) async throws -> Setup {
        let mock = try await MockSession.start(configure: {
            $0.historyPerToken = 100
            $0.faults = faults
        })
        let scenario = try ScenarioLoader().load(yaml: order, file: "order.yaml").scenario
        let now = WallClock().now() / 1000 * 1000
        let clock = ManualClock(start: now)
        let start = now + 1000
        let token = MockSession.token(seed)
        let probe = SessionProbe()
        let session = LiveSession(
            run: ScenarioRun(scenario: scenario, start: start), client: mock.client,
            delivery: .init(bundleID: MockSession.bundleID, retry: retry),
            targets: target ? [0: .device(token)] : [:], clock: clock, configuration: configuration,
            observer: { probe.record($0) }
        )
        let order = try #require(await session.activity(named: "order"))
        return Setup(mock: mock, clock: clock, start: start, session: session, probe: probe, token: token, order: order)
    }

    static func note(_ text: String) -> StateValue { .object(StateObject([("note", .string(text))])) }

    static func timestamps(_ pushes: [Push]) -> [Int64] { pushes.map(\.timestamp) }

    @Test func theSessionSleepsUntilEachDeadlineAndSendsWhatThePlanPredicts() async throws {
        let s = try await Self.setup(token: 39)
        var plan = ScenarioRun(
            scenario: try ScenarioLoader().load(yaml: Self.order, file: "order.yaml").scenario, start: s.start)
        var planned = CollectingSink()
        plan.run(into: &planned)
        let running = Task { await s.session.run() }
        // Step the clock to each deadline the session sleeps until, as time would pass.
        var sleeps: [Millis] = []
        while s.probe.decided.count < planned.pushes.count {
            try await s.probe.wait("the session to sleep") { _ in s.clock.sleeperCount > 0 }
            let deadline = try #require(s.clock.earliestDeadline)
            sleeps.append(deadline)
            s.clock.set(deadline)
            // Played, and asleep again on what comes next (the last wake's next sleep is the drain).
            try await s.probe.wait("the session to play and sleep again") { probe in
                probe.finished || (s.clock.sleeperCount > 0 && s.clock.earliestDeadline != deadline)
            }
        }
        let report = await running.value
        #expect(s.probe.decided.map(\.payload) == planned.pushes.map(\.payload))
        // One wake when the activity starts (the app shows its first state), then one per push.
        #expect(sleeps == [s.start] + planned.pushes.map(\.time))
        // Steps can come faster than answers: a push waiting behind one in flight may be replaced.
        #expect(report.delivered + report.superseded == planned.pushes.count && report.status == .success)
        await s.mock.stop()
    }

    @Test func aTriggerRacingAScheduledBeatLandsInTimeOrderAndBothReachTheDevice() async throws {
        let s = try await Self.setup(token: 40)
        let running = Task { await s.session.run() }
        // The tick at +10 s and the courier's note arrive at the same instant.
        s.clock.set(s.start + 10_000)
        let outcome = try await s.session.trigger("note", activity: s.order, input: Self.note("at the door"))
        #expect(outcome == .applied)
        s.clock.set(s.start + 70_000)
        let report = await running.value

        #expect(report.status == .success)
        // The jump made every push due at once: one in flight, the newest waiting; none lost.
        #expect(report.delivered + report.superseded == report.decided && report.decided >= 7)
        let decided = s.probe.decided
        #expect(Self.timestamps(decided) == Self.timestamps(decided).sorted())
        #expect(Set(Self.timestamps(decided)).count == decided.count)
        let engine = try #require(await s.session.activities.first)
        #expect(engine.state["minute"] == .int(6))
        #expect(engine.lifecycle == .ended)
        // The note's message went out in a push no earlier than the tick's.
        let noteAt = try #require(
            decided.firstIndex { String(decoding: $0.payload, as: UTF8.self).contains("Courier: at the door") })
        let tickAt = try #require(
            decided.firstIndex { String(decoding: $0.payload, as: UTF8.self).contains("\"minute\":1") })
        #expect(tickAt <= noteAt)
        // The device holds the end, and every accepted push in order.
        let device = try #require(s.mock.server.activity(token: s.token))
        #expect(device.lifecycle == .ended)
        #expect(device.counters.droppedOld == 0)
        #expect(s.mock.server.pushes(token: s.token).filter { $0.status == 200 }.count == report.delivered)
        await s.mock.stop()
    }

    @Test func eventsForAnEndedActivityAreIgnoredAndNothingFollowsTheEnd() async throws {
        let s = try await Self.setup(token: 41, configuration: .init(finishesWhenIdle: false))
        let running = Task { await s.session.run() }
        s.clock.set(s.start + 20_000)
        #expect(try await s.session.end(activity: s.order, dismissal: .immediate) == .applied)
        // The end waits for the next second (a push went at +20 s); nothing applies meanwhile or after.
        #expect(try await s.session.trigger("note", activity: s.order, input: Self.note("too late")) == .ended)
        s.clock.advance(by: .milliseconds(1000))
        #expect(
            try await s.session.apply(ExternalChange(label: "eta", set: [.init(["eta"], .int(5))]), activity: s.order)
                == .ended)
        try await s.probe.wait("the end to be delivered") { $0.delivered.contains { $0.event == .end } }
        s.clock.set(s.start + 70_000)
        s.session.requestStop()
        let report = await running.value
        #expect(s.probe.decided.last?.event == .end)
        #expect(s.probe.decided.filter { $0.event == .end }.count == 1)
        #expect(report.status == .success && report.stopReason == .requested)
        let end = try #require(s.probe.decided.last)
        #expect(String(decoding: end.payload, as: UTF8.self).contains("\"dismissal-date\":\(end.timestamp - 1)"))
        #expect(!String(decoding: end.payload, as: UTF8.self).contains("too late"))
        #expect(s.mock.server.activity(token: s.token)?.lifecycle == .ended)
        // The session refuses events once it has stopped.
        await #expect(throws: LiveSessionError.stopped) { try await s.session.trigger("note", activity: s.order) }
        await s.mock.stop()
    }

    @Test func anActivityWhoseTokenArrivesLateGetsItsNewestStateAndLosesNothing() async throws {
        let s = try await Self.setup(token: 42, target: false, configuration: .init(finishesWhenIdle: false))
        let running = Task { await s.session.run() }
        s.clock.set(s.start + 30_000)
        try await s.session.trigger("note", activity: s.order, input: Self.note("parking"))
        // The note goes a second after the +30 s tick (one push a second).
        s.clock.advance(by: .milliseconds(1000))
        try await s.probe.wait("the note to be decided") { $0.decided.count == 4 }
        #expect(s.probe.sent.isEmpty)

        try await s.session.setTarget(.device(s.token), activity: s.order)
        try await s.probe.wait("the held state to be delivered") { !$0.delivered.isEmpty }
        // One push went, with everything the held ones carried; the rest were superseded, not lost.
        #expect(s.probe.delivered.count == 1)
        let shown = try #require(s.mock.server.activity(token: s.token)?.shownState)
        #expect(shown == wire(try #require(await s.session.activities.first?.state)))
        s.session.requestStop()
        let report = await running.value
        #expect(report.delivered + report.superseded == report.decided)
        #expect(report.abandoned.isEmpty)
        await s.mock.stop()
    }

    @Test func aStopDuringARetryBackOffSendsTheEndWhenTheRetryFallsDue() async throws {
        let failing = FaultPlan(errors: [.init(error: APNsError(status: 500, reason: "InternalServerError"), rate: 1)])
        let s = try await Self.setup(token: 43, configuration: .init(finishesWhenIdle: false), faults: failing)
        let running = Task { await s.session.run() }
        s.clock.set(s.start + 10_000)
        try await s.probe.wait("a retry") { $0.retries == 1 }
        // In virtual time the back-off has not passed, so nothing went again.
        #expect(s.probe.sent.count == 1)

        s.mock.server.setFaults(.none)
        s.session.requestStop()
        try await s.probe.wait("the end to be decided") { $0.decided.contains { $0.event == .end } }
        s.clock.advance(by: .milliseconds(1000))
        let report = await running.value

        // The retry sent the end (the newest state), not the stale tick.
        #expect(s.probe.sent.count == 2)
        #expect(s.probe.sent.last?.event == .end)
        #expect(report.delivered == 1 && report.superseded == 1 && report.retries == 1)
        #expect(report.abandoned.isEmpty && report.status == .success)
        let device = try #require(s.mock.server.activity(token: s.token))
        #expect(device.lifecycle == .ended)
        #expect(device.counters.rendered == 1)
        await s.mock.stop()
    }

    @Test func aStopWithPushesInFlightDrainsThemAndReportsWhatMissedTheDeadline() async throws {
        // In flight over a slow network: the drain waits for the answers.
        let slow = try await Self.setup(
            token: 44, configuration: .init(finishesWhenIdle: false), faults: FaultPlan(latency: Latency("300ms")))
        let running = Task { await slow.session.run() }
        slow.clock.set(slow.start + 10_000)
        try await slow.probe.wait("a push in flight") { !$0.sent.isEmpty }
        slow.session.requestStop()
        let drained = await running.value
        #expect(drained.abandoned.isEmpty)
        #expect(drained.delivered == drained.decided - drained.superseded)
        #expect(slow.mock.server.activity(token: slow.token)?.lifecycle == .ended)
        await slow.mock.stop()

        // Failing with a long back-off: the drain deadline passes first, and nothing vanishes.
        let failing = FaultPlan(errors: [.init(error: APNsError(status: 503, reason: "ServiceUnavailable"), rate: 1)])
        let s = try await Self.setup(
            token: 45, retry: RetryPolicy(base: .seconds(60), cap: .seconds(60), maxAttempts: 5),
            configuration: .init(drainTimeout: .seconds(5), finishesWhenIdle: false), faults: failing
        )
        let stuck = Task { await s.session.run() }
        s.clock.set(s.start + 10_000)
        try await s.probe.wait("a retry") { $0.retries == 1 }
        s.session.requestStop()
        try await s.probe.wait("the end to be decided") { $0.decided.contains { $0.event == .end } }
        s.clock.advance(by: .milliseconds(5_000))
        let report = await stuck.value
        #expect(report.delivered == 0)
        #expect(report.abandoned.map(\.event) == [.update, .end])
        #expect(report.status == .pushesFailed)
        #expect(report.summary.contains("2 still pending at the drain deadline"))
        // A retry timer that falls due afterwards sends nothing: the drain gave up both pushes,
        // so the timer finds no push of its activity to send.
        #expect(s.session.delivery.pendingPushes.isEmpty)
        s.clock.advance(by: .milliseconds(60_000))
        #expect(s.session.delivery.pendingPushes.isEmpty)
        #expect(s.probe.sent.count == 1)
        await s.mock.stop()
    }

    @Test func externalChangesAreCheckedAgainstTheContentStateAndFollowThePolicy() async throws {
        let s = try await Self.setup(token: 46, configuration: .init(finishesWhenIdle: false))
        let running = Task { await s.session.run() }
        s.clock.set(s.start + 1_000)
        let wrongType = try await s.session.apply(
            ExternalChange(label: "eta", set: [.init(["eta"], .string("soon"))]), activity: s.order)
        #expect(wrongType == .invalid(.typeMismatch(path: "eta", expected: .int, got: .string, activity: "order")))
        let unknown = try await s.session.apply(
            ExternalChange(label: "x", set: [.init(["courier"], .string("Priya"))]), activity: s.order)
        #expect(unknown == .invalid(.unknownField(path: "courier", activity: "order")))
        #expect(
            try await s.session.apply(ExternalChange(label: "same", set: [.init(["eta"], .int(30))]), activity: s.order)
                == .unchanged)
        let alert = Alert<String>(title: .plain("Almost there"), body: nil, sound: nil)
        let arrived = ExternalChange(
            label: "courier-arrived", set: [.init(["eta"], .int(2))], relevance: 90, alert: alert, priority: .high)
        #expect(try await s.session.apply(arrived, activity: s.order) == .applied)
        try await s.probe.wait("the change to be delivered") { $0.delivered.contains { $0.reason.kind == .event } }
        let push = try #require(s.probe.decided.first { $0.reason.kind == .event })
        #expect(push.priority == .high)
        #expect(push.reason.description.hasPrefix("event courier-arrived"))
        let text = String(decoding: push.payload, as: UTF8.self)
        #expect(text.contains("\"eta\":2") && text.contains("Almost there") && text.contains("\"relevance-score\":90"))
        s.session.requestStop()
        _ = await running.value
        await s.mock.stop()
    }

    @Test func activitiesAddedWhileRunningPlayTheirStory() async throws {
        let mock = try await MockSession.start()
        let scenario = try ScenarioLoader().load(yaml: Self.order, file: "order.yaml").scenario
        let now = WallClock().now() / 1000 * 1000
        let clock = ManualClock(start: now)
        let session = LiveSession(
            run: ScenarioRun(activities: []), client: mock.client, delivery: .init(bundleID: MockSession.bundleID),
            clock: clock, configuration: .init(finishesWhenIdle: false)
        )
        let probe = SessionProbe(streamOf: session)
        let running = Task { await session.run() }
        let program = ActivityProgram(scenario.activities[0], index: 0, scenarioSeed: scenario.seed)
        let token = MockSession.token(47)
        let added = try await session.add(program, start: now, target: .device(token))
        #expect(added.id == 0)
        // A handle names an activity of its own session only.
        let other = LiveSession(
            run: ScenarioRun(activities: []), client: mock.client, delivery: .init(bundleID: MockSession.bundleID),
            clock: clock)
        await #expect(throws: LiveSessionError.unknownActivity(0)) { try await other.trigger("note", activity: added) }
        clock.set(now + 70_000)
        try await probe.wait("the end to be delivered") { $0.delivered.contains { $0.event == .end } }
        #expect(mock.server.activity(token: token)?.lifecycle == .ended)
        session.requestStop()
        let report = await running.value
        try await probe.wait("the stream to finish") { $0.finished }
        #expect(report.decided == 7 && report.delivered + report.superseded == 7)
        #expect(probe.decided.count == 7 && probe.delivered.count == report.delivered)
        await mock.stop()
    }

    @Test func theReportGivesTheExitStatusTheREADMEDocuments() {
        var report = SessionReport()
        #expect(report.status == .success && report.status.rawValue == 0)
        report.gaveUp = 1
        #expect(report.status == .pushesFailed && report.status.rawValue == 3)
        report.stopReason = .interrupted
        #expect(report.status == .interrupted && report.status.rawValue == 130)
        report.configurationError = "TLS: certificate not trusted"
        #expect(report.status == .setupRefused && report.status.rawValue == 2)
        var stopped = SessionReport()
        stopped.stoppedActivities = [.init(activity: 0, name: "order", reason: "410 Unregistered")]
        #expect(stopped.status == .pushesFailed)
    }
}
