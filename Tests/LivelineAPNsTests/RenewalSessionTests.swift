import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import Testing

/// A 20-hour story played in virtual time through a live session, over TLS to the mock, whose
/// device model follows the same clock: the device shows exactly one current activity at every
/// step, and none reaches the system's 8 hours.
@Suite(.serialized) struct RenewalSessionTests {
    /// A cricket day: started by push, an over every 10 minutes, a six at 16h, stumps at 20h.
    static let day = """
        liveline: 1
        name: Test day
        bundle-id: com.example.matchday
        policy: { stale-after: 30m, min-interval: 0, renew: { before: 7h30m } }
        activities:
          - name: day
            attributes-type: MatchAttributes
            attributes: { home: A, away: B }
            content-state: { over: 0, runs: 0 }
            beats:
              - { at: 0, start: { input-push-token: true }, alert: { title: "Play starts", sound: default } }
              - { id: over, every: 10m, to: 19h50m, set: { over: "{{ n }}", runs: "{{ state.runs + 4 }}" } }
              - { id: six, at: 16h, priority: high, set: { runs: "{{ state.runs + 6 }}" }, alert: { title: "Six!" } }
              - { id: stumps, at: 20h, end: { dismissal: immediate } }
        """

    /// The activities the device shows now, started with `startToken`: neither ended nor dismissed.
    static func current(_ mock: MockAPNsServer, startedWith startToken: String) -> [ActivitySnapshot] {
        mock.activities().filter {
            $0.pushToStartToken == startToken && ($0.lifecycle == .active || $0.lifecycle == .stale)
        }
    }

    /// Steps the clock from deadline to deadline through `end`, each time until the session has
    /// played, APNs has answered and the session sleeps again, as time would pass.
    static func step(
        _ clock: ManualClock, _ session: LiveSession, _ probe: SessionProbe, through end: Millis
    )
        async throws
    {
        while true {
            try await probe.wait("the session to sleep") { _ in clock.sleeperCount > 0 }
            guard let deadline = clock.earliestDeadline, deadline <= end else { return }
            clock.set(deadline)
            try await probe.wait("the session to play, be answered and sleep again") { _ in
                clock.sleeperCount > 0 && clock.earliestDeadline != deadline && session.delivery.outstanding == 0
            }
        }
    }

    /// A session over the day, on a manual clock the mock's device model follows too, whose
    /// delivery finds a started activity's update token on the mock as an app would report it.
    struct Setup {
        let clock: ManualClock
        let mock: MockSession
        let probe = SessionProbe()
        let session: LiveSession
        let start: Millis
        let startToken: String

        init(token seed: Int, configuration: LiveSession.Configuration = .init()) async throws {
            let scenario = try ScenarioLoader().load(yaml: RenewalSessionTests.day, file: "day.yaml").scenario
            let clock = ManualClock(start: WallClock().now() / 1000 * 1000)
            let mock = try await MockSession.start(
                clientNow: { clock.now() / 1000 },
                configure: {
                    $0.clock = clock
                    $0.historyPerToken = 400
                    $0.keepsEveryPayload = true
                })
            let server = mock.server
            let probe = probe
            self.clock = clock
            self.mock = mock
            start = clock.now() + 1000
            startToken = MockSession.token(seed)
            session = LiveSession(
                run: ScenarioRun(scenario: scenario, start: start), client: mock.client,
                delivery: .init(
                    bundleID: MockSession.bundleID,
                    updateTokenResolver: { _, startToken in
                        RenewalSessionTests.current(server, startedWith: startToken).last?.updateToken
                    }),
                targets: [0: .pushToStart(startToken)], clock: clock, configuration: configuration,
                observer: { probe.record($0) }
            )
        }
    }

    @Test func aTwentyHourStoryShowsExactlyOneCurrentActivityThroughout() async throws {
        let setup = try await Setup(token: 60)
        let (clock, mock, probe, session, start, startToken) = (
            setup.clock, setup.mock, setup.probe, setup.session, setup.start, setup.startToken
        )
        let server = mock.server
        let running = Task { await session.run() }
        var steps = 0
        var counts: [Int] = []
        while !probe.finished {
            try await probe.wait("the session to sleep") { probe in probe.finished || clock.sleeperCount > 0 }
            guard !probe.finished, let deadline = clock.earliestDeadline else { break }
            clock.set(deadline)
            try await probe.wait("the session to play, be answered and sleep again") { probe in
                probe.finished
                    || (clock.sleeperCount > 0 && clock.earliestDeadline != deadline
                        && session.delivery.outstanding == 0)
            }
            steps += 1
            let shown = Self.current(server, startedWith: startToken)
            // From the first start until stumps, which ends the story.
            let delivered = probe.delivered
            if !delivered.isEmpty, !delivered.contains(where: { $0.reason.beat == "stumps" }) {
                counts.append(shown.count)
            }
            // Nothing the device shows has reached the system's 8 hours.
            for activity in shown {
                #expect(clock.now() - (activity.startedAt ?? clock.now()) < 8 * 3_600_000, "\(activity.id)")
            }
        }
        let report = await running.value
        #expect(report.status == .success, "\(report.summary)")
        #expect(steps > 100)
        // After the first start and until the end, exactly one current activity at every step.
        #expect(!counts.isEmpty && counts.allSatisfy { $0 == 1 }, "\(counts)")

        // Three activities: the first, and the successors of the renewals at 7h30m and 15h.
        let started = server.activities().filter { $0.pushToStartToken == startToken }
        #expect(started.count == 3)
        let renewals = probe.delivered.filter { $0.reason.kind == .renewalStart }
        #expect(renewals.map { ($0.time - start) / 1000 } == [27000, 54000])
        for activity in started {
            let began = try #require(activity.startedAt)
            let ended = try #require(activity.endedAt)
            // Each ended by a push (a renewal's end, or stumps), well before the system would.
            #expect(ended - began < 8 * 3_600_000, "\(activity.id) ran \(ended - began) ms")
            #expect(activity.lifecycle == .dismissed)
            #expect(activity.counters.droppedOld == 0 && activity.counters.ignoredAfterEnd == 0)
            #expect(activity.counters.wouldNotRender == 0, "\(activity.lastReasons)")
        }
        // Each successor started with the state its predecessor showed, and ended the story's way.
        let last = try #require(started.last)
        #expect(last.contentState?.objectValue?["over"] == .int(119))
        let finalPush = try #require(probe.delivered.last)
        #expect(finalPush.event == .end && finalPush.reason.beat == "stumps" && finalPush.generation == 2)
        // A successor beside its predecessor, whose end follows, is no second start of one story.
        #expect(server.stats().duplicateStarts == 0)
        // The successors' starts lit the screen quietly: an alert without sound.
        let successorAlerts = started.dropFirst().compactMap(\.lastAlert)
        #expect(successorAlerts.count == 2)
        #expect(successorAlerts.allSatisfy { $0.objectValue?["sound"] == nil })
        await mock.stop()
    }

    @Test func theMockCountsAStartSentAgainButNotASuccessorWithNewerContent() async throws {
        let mock = try await MockSession.start()
        let token = MockSession.token(62)
        let now = Int64(Date().timeIntervalSince1970)
        func start(_ timestamp: Int64) async throws -> Int {
            let payload =
                #"{"aps":{"timestamp":\#(timestamp),"event":"start","content-state":{"over":1},"attributes-type":"MatchAttributes","attributes":{},"alert":{"title":"Day"}}}"#
            let response = try await mock.client.send(
                .push(
                    token: token,
                    headers: PushHeaders(
                        topic: LiveActivityTopic.topic(forBundleID: MockSession.bundleID), priority: .high,
                        expiration: 0),
                    payload: Array(payload.utf8)))
            return response.status
        }
        #expect(try await start(now) == 200)
        // The same start again (a sender that resent it): two activities for one story.
        #expect(try await start(now) == 200)
        #expect(mock.server.stats().duplicateStarts == 1)
        // A successor with newer content beside the activity shown: a renewal, not a fault.
        #expect(try await start(now + 60) == 200)
        #expect(mock.server.stats().duplicateStarts == 1)
        await mock.stop()
    }

    @Test func aRefusedSuccessorKeepsThePredecessorAndItsUpdates() async throws {
        let setup = try await Setup(token: 61, configuration: .init(finishesWhenIdle: false))
        let (clock, mock, probe, session, start, startToken) = (
            setup.clock, setup.mock, setup.probe, setup.session, setup.start, setup.startToken
        )
        let server = mock.server
        let running = Task { await session.run() }
        // The first start and the first hours go as usual.
        try await Self.step(clock, session, probe, through: start + 7 * 3_600_000)
        let first = try #require(Self.current(server, startedWith: startToken).first)
        // Then the push-to-start token is gone: the renewal's start is refused.
        server.setFaults(FaultPlan(unregisteredTokens: [startToken]))
        try await Self.step(clock, session, probe, through: start + 8 * 3_600_000 - 60_000)
        // The end was never sent: the device still shows the first activity, with the newest state.
        let notRenewed = probe.deliveries.compactMap { event -> Push? in
            if case .notRenewed(_, let push, _) = event { push } else { nil }
        }
        #expect(notRenewed.map(\.reason.kind) == [.renewalEnd])
        #expect(!probe.deliveries.contains { if case .abandoned = $0 { true } else { false } })
        let shown = Self.current(server, startedWith: startToken)
        #expect(shown.map(\.id) == [first.id])
        #expect(shown.first?.contentState?.objectValue?["over"] == .int(47))
        #expect(session.delivery.stopReason(for: 0) == nil)
        session.requestStop()
        _ = await running.value
        await mock.stop()
    }
}
