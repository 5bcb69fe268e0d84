import LivelineCore

/// The real-time run of a story: scheduled beats and external events merged into one ordered
/// stream of pushes, delivered to APNs, with a clean stop.
///
/// `liveline play` is a session over a scenario file, and an app's own backend can run one whose
/// activities are added as orders arrive and whose events come from its code. (The bridge runs
/// the same engine differently: one stored step at a time, so any instance can resume a story;
/// see `BridgeDispatcher`.) What a session does, in order:
///
/// 1. **Scheduled beats.** The loop sleeps on the session's `EngineClock` until the next
///    deadline of any activity (a beat, a flush, a heartbeat, the 8-hour cap) and plays what is
///    due, through the engine's rules (see `ActivityEngine`).
/// 2. **External events**, at any moment: ``trigger(_:activity:input:)`` a beat by id with
///    `input` values, ``apply(_:activity:)`` an `ExternalChange` (fields, relevance, alert,
///    priority, end), ``end(activity:dismissal:)``. Each first plays everything due by now, so
///    it lands in time order with the beats, then wakes the loop to pick up new deadlines.
/// 3. **Targets that come late.** An activity may have no token yet (``setTarget(_:activity:)``
///    later), or wait for the update token its push-to-start reports: its pushes wait in
///    ``PushDelivery``, the newest state carrying what older ones mattered for. Nothing is lost.
/// 4. **A clean stop.** ``requestStop(_:)`` (Ctrl-C, a shutdown), or the story running out:
///    every active activity is ended with what it shows (unless configured not to), pushes in
///    flight are drained until ``Configuration/drainTimeout``, and what was still pending is
///    reported as abandoned, never silently dropped.
/// 5. **Events.** Everything that happens is a ``SessionEvent``, to a synchronous observer and to
///    any number of ``events(bufferingPolicy:)`` streams; ``run()`` returns the
///    ``SessionReport``, whose ``SessionReport/status`` is the exit status of a play.
///
/// Time is the clock's: `WallClock` for real runs, `ManualClock` in tests, where a test
/// steps through hours of story, retry back-offs and drain deadlines without sleeping.
///
/// **Concurrency.** The engines and the scheduler belong to the actor. Delivery answers arrive
/// on NIO event loops and go straight to the event hub; only ``requestStop(_:)`` and the
/// doorbell cross into the loop from outside.
public actor LiveSession {
    /// How a session stops and what it reports.
    public struct Configuration: Sendable {
        /// How long a stop waits for pushes in flight, on the session's clock.
        public var drainTimeout: Duration
        /// On a stop, end every active activity with its current state and an immediate
        /// dismissal. Off leaves them running on the devices (`liveline play --no-end`).
        public var endsActivitiesOnStop: Bool
        /// Finish when no activity has anything left to do (a play), or keep waiting for
        /// external events and new activities until stopped (a bridge).
        public var finishesWhenIdle: Bool
        /// Send ``SessionEvent/woke(activities:now:)`` after each wake, for live views.
        public var reportsWakes: Bool

        /// A configuration for a play: drain for 15 seconds, end the activities, finish when done.
        public init(
            drainTimeout: Duration = .seconds(15), endsActivitiesOnStop: Bool = true, finishesWhenIdle: Bool = true,
            reportsWakes: Bool = false
        ) {
            self.drainTimeout = drainTimeout
            self.endsActivitiesOnStop = endsActivitiesOnStop
            self.finishesWhenIdle = finishesWhenIdle
            self.reportsWakes = reportsWakes
        }
    }

    private enum Phase {
        case ready, running, stopping, finished
    }

    /// The clock the session follows.
    public nonisolated let clock: any EngineClock
    /// Where the pushes go.
    public nonisolated let delivery: PushDelivery
    /// What the session was made with.
    public nonisolated let configuration: Configuration

    private var scenarioRun: ScenarioRun
    private var sink: SessionSink
    private var phase = Phase.ready
    private var finalReport: SessionReport?
    private let hub: SessionEventHub
    private let doorbell: SessionDoorbell

    /// A session over `run`'s activities, sending through `client`.
    ///
    /// - Parameters:
    ///   - run: the activities to play, each at the place its id names.
    ///   - client: the connection to APNs (or the mock) the pushes go through.
    ///   - delivery: the app's topic, the retry policy and the resolvers for targets and tokens.
    ///   - targets: where each activity's pushes go, by its place in `run`; an activity without
    ///     one waits for ``setTarget(_:activity:)``.
    ///   - clock: the time the session follows: `WallClock` for real runs, a manual clock in tests.
    ///   - configuration: how the session stops and what it reports.
    ///   - observer: sees every event synchronously, from the actor or an event loop; keep it quick.
    public init(
        run: ScenarioRun, client: APNsClient, delivery: PushDelivery.Configuration, targets: [Int: PushTarget] = [:],
        clock: any EngineClock = WallClock(), configuration: Configuration = Configuration(),
        observer: (@Sendable (SessionEvent) -> Void)? = nil
    ) {
        let hub = SessionEventHub(names: run.activities.map(\.program.name), observer: observer)
        let doorbell = SessionDoorbell()
        let delivery = PushDelivery(client: client, configuration: delivery, clock: clock) { event in
            hub.emit(.delivery(event))
            if case .configurationError(let advice) = event { doorbell.requestStop(.configurationError(advice)) }
        }
        for (activity, target) in targets { delivery.setTarget(target, for: activity) }
        self.clock = clock
        self.delivery = delivery
        self.configuration = configuration
        self.hub = hub
        self.doorbell = doorbell
        self.scenarioRun = run
        self.sink = SessionSink(delivery: delivery, hub: hub)
    }

    // MARK: Listening

    /// Every event from now on, ending with ``SessionEvent/finished(_:)``.
    public nonisolated func events(
        bufferingPolicy: AsyncStream<SessionEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<SessionEvent> {
        hub.stream(bufferingPolicy: bufferingPolicy)
    }

    /// The activities as the engines have them now.
    public var activities: [ActivityEngine] { scenarioRun.activities }

    /// The activity named `name`, if any (the first, for copies of one story's activity).
    public func activity(named name: String) -> Activity? {
        scenarioRun.activities.firstIndex { $0.program.name == name }.map(Activity.init(id:))
    }

    // MARK: Running

    /// Plays until the story runs out (or, with ``Configuration/finishesWhenIdle`` off, until
    /// stopped), then stops cleanly and returns what happened. A second call returns the same
    /// report once the first finishes.
    public func run() async -> SessionReport {
        guard phase == .ready else { return finalReport ?? hub.report }
        phase = .running
        while phase == .running, doorbell.stopRequest == nil {
            let deadline = scenarioRun.nextDeadline()
            if deadline == nil, configuration.finishesWhenIdle { break }
            await doorbell.wait(until: deadline, on: clock)
            guard doorbell.stopRequest == nil else { break }
            play(until: clock.now())
        }
        return await finish()
    }

    /// Asks the session to stop: it ends the activities, drains, and ``run()`` returns. Safe from
    /// any thread, a signal handler's included.
    public nonisolated func requestStop(_ reason: StopReason = .requested) {
        doorbell.requestStop(reason)
    }

    private func play(until now: Millis) {
        scenarioRun.run(until: now, into: &sink)
        if configuration.reportsWakes { hub.emit(.woke(activities: scenarioRun.activities, now: now)) }
    }

    private func finish() async -> SessionReport {
        phase = .stopping
        let now = clock.now()
        if let reason = doorbell.stopRequest {
            hub.setStopReason(reason)
            hub.emit(.stopping(reason))
            if case .configurationError = reason {
                // Nothing more can be sent; what waits is reported below.
            } else if configuration.endsActivitiesOnStop {
                scenarioRun.stop(at: now, into: &sink)
            } else {
                scenarioRun.run(until: now, into: &sink)
            }
            if configuration.reportsWakes { hub.emit(.woke(activities: scenarioRun.activities, now: now)) }
        }
        await drain(deadline: now + configuration.drainTimeout.millis)
        phase = .finished
        let report = hub.finish()
        finalReport = report
        return report
    }

    /// Waits until every push has finished, or until `deadline`; then abandons what is left,
    /// which reports each such push.
    private func drain(deadline: Millis) async {
        let delivery = self.delivery
        let clock = self.clock
        let drained = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await delivery.waitUntilIdle()
                return true
            }
            group.addTask {
                try? await clock.sleep(until: deadline)
                return false
            }
            let first = await group.next() ?? true
            if !first { delivery.abandon(reason: "the run stopped before APNs answered (drain deadline passed)") }
            group.cancelAll()
            return first
        }
        if drained, !delivery.pendingPushes.isEmpty {
            delivery.abandon(reason: "the run stopped while pushes waited (no target, or a configuration error)")
        }
    }

    // MARK: External events

    /// Applies beat `beat` (a beat with an `id`) to an activity now, with `input` for its
    /// `{{ input.… }}` templates, as a webhook does.
    @discardableResult
    public func trigger(
        _ beat: String, activity: Activity, input: StateValue? = nil
    ) throws(LiveSessionError) -> ActivityEngine.TriggerOutcome {
        try checkAccepting(activity)
        let outcome = scenarioRun.trigger(beat, activity: activity.id, input: input, at: clock.now(), into: &sink)
        hub.emit(.triggered(activity: activity.id, beat: beat, outcome: outcome))
        doorbell.ring()
        return outcome
    }

    /// Applies an external change to an activity now.
    @discardableResult
    public func apply(
        _ change: ExternalChange, activity: Activity
    ) throws(LiveSessionError) -> ActivityEngine.ChangeOutcome {
        try checkAccepting(activity)
        let outcome = scenarioRun.apply(change, activity: activity.id, at: clock.now(), into: &sink) ?? .notStarted
        hub.emit(.changed(activity: activity.id, label: change.label, outcome: outcome))
        doorbell.ring()
        return outcome
    }

    /// Ends an activity now with what it shows, and `dismissal` (nil: the policy's).
    @discardableResult
    public func end(
        activity: Activity, dismissal: Dismissal? = nil
    ) throws(LiveSessionError) -> ActivityEngine.ChangeOutcome {
        try apply(.endNow(dismissal: dismissal), activity: activity)
    }

    /// Where an activity's pushes go, given now or later (the pushes that waited go now).
    public func setTarget(_ target: PushTarget, activity: Activity) throws(LiveSessionError) {
        try checkKnown(activity)
        delivery.setTarget(target, for: activity.id)
        hub.emit(.targetSet(activity: activity.id, target: target))
    }

    /// The update token an activity started by push reported (its `input-push-token`).
    public func setUpdateToken(_ token: String, activity: Activity) throws(LiveSessionError) {
        try checkKnown(activity)
        delivery.setUpdateToken(token, for: activity.id)
    }

    /// Adds an activity that starts at `start` (UNIX milliseconds), as the bridge does when a
    /// new order arrives. Returns its handle.
    @discardableResult
    public func add(
        _ program: ActivityProgram, start: Millis, target: PushTarget? = nil
    ) throws(LiveSessionError) -> Activity {
        guard phase == .ready || phase == .running else { throw .stopped }
        let id = scenarioRun.activities.count
        var limit = PayloadLimits.device
        if case .channel? = target?.updates { limit = PayloadLimits.broadcast }
        let engine = ActivityEngine(
            program: program, id: id, scenarioStart: start - program.offset, payloadLimit: limit)
        hub.addName(program.name)
        if let target { delivery.setTarget(target, for: id) }
        scenarioRun.add(engine)
        scenarioRun.run(until: clock.now(), into: &sink)
        doorbell.ring()
        return Activity(id: id)
    }

    private func checkAccepting(_ activity: Activity) throws(LiveSessionError) {
        guard phase == .ready || phase == .running, doorbell.stopRequest == nil else { throw .stopped }
        try checkKnown(activity)
    }

    /// A handle from another session may name an activity this one does not have.
    private func checkKnown(_ activity: Activity) throws(LiveSessionError) {
        guard scenarioRun.activities.indices.contains(activity.id) else { throw .unknownActivity(activity.id) }
    }
}

/// Why a ``LiveSession`` refused an external event.
public enum LiveSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The session is stopping or has finished.
    case stopped
    /// The session has no activity with that id (a handle from another session).
    case unknownActivity(Int)

    public var description: String {
        switch self {
        case .stopped: "the session is stopping or has finished; nothing more can be applied"
        case .unknownActivity(let activity): "the session has no activity \(activity)"
        }
    }
}
