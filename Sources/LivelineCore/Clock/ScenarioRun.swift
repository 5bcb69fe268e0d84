/// A set of activities played together from one ``Scheduler``.
///
/// Pushes come out in global time order: the scheduler always wakes the activity with the
/// earliest deadline, and each engine plays only what is due. ``run(until:into:)-(_,Sink)`` jumps from
/// deadline to deadline (the virtual clock, as fast as the CPU allows); in real time,
/// `LiveSession` (in LivelineAPNs) sleeps until ``nextDeadline()`` and runs until then (a speed
/// factor was applied when the programs were compiled).
///
/// A run is a value owned by one task at a time; it holds no locks and shares nothing mutable.
public struct ScenarioRun: Sendable {
    /// The activities' engines, each at its id's place; read them for state and counts as the run goes.
    public private(set) var activities: [ActivityEngine]
    private var scheduler: Scheduler

    /// A run of `activities`, whose ids must be their places in the array.
    public init(activities: [ActivityEngine]) {
        self.activities = activities
        self.scheduler = Scheduler(activities: activities.count)
        for i in activities.indices { scheduler.schedule(i, at: activities[i].nextWake) }
    }

    /// One copy of each activity of `scenario`, starting at `start` (UNIX milliseconds).
    /// `seed` replaces the file's seed; `speed` compresses the story for real-time play.
    public init(
        scenario: Scenario, start: Millis, seed: UInt64? = nil, speed: Double = 1,
        payloadLimit: Int = PayloadLimits.device
    ) {
        let programs = scenario.activities.enumerated().map {
            ActivityProgram($0.element, index: $0.offset, scenarioSeed: seed ?? scenario.seed, speed: speed)
        }
        self.init(
            activities: programs.enumerated().map {
                ActivityEngine(program: $0.element, id: $0.offset, scenarioStart: start, payloadLimit: payloadLimit)
            })
    }

    /// Adds an activity to the running set, as the bridge does when a new order arrives. Its
    /// ``ActivityEngine/id`` must be the current ``activities`` count, its place in the run.
    /// Returns that place.
    @discardableResult
    public mutating func add(_ engine: ActivityEngine) -> Int {
        let index = scheduler.addActivity()
        activities.append(engine)
        scheduler.schedule(index, at: engine.nextWake)
        return index
    }

    /// The earliest time anything is due, or nil when every activity is done.
    public mutating func nextDeadline() -> Millis? { scheduler.peek()?.time }

    /// Plays everything due at or before `until` in time order, as fast as possible.
    public mutating func run<Sink: PushSink>(until: Millis = .max, into sink: inout Sink) {
        runGeneric(until: until, into: &sink)
        sink.batchEnded()
    }

    /// Plays what is due at or before `until` in time order, like ``run(until:into:)-(_,Sink)``, but wakes
    /// at most `maxWakes` activities (each hands the sink what it has due, usually one push):
    /// a caller that buffers pushes, with a million activities due at the same instant, takes
    /// them a slice at a time instead of all at once. What is left plays at the next call, in
    /// the same order. Returns how many activities it woke.
    @discardableResult
    public mutating func run<Sink: PushSink>(until: Millis, wakingAtMost maxWakes: Int, into sink: inout Sink) -> Int {
        let woken = runGeneric(until: until, maxWakes: maxWakes, into: &sink)
        sink.batchEnded()
        return woken
    }

    @discardableResult
    mutating func runGeneric<Sink: PushSink>(until: Millis, maxWakes: Int = .max, into sink: inout Sink) -> Int {
        var writer = Self.writer()
        var woken = 0
        while woken < maxWakes, let (time, index) = scheduler.peek(), time <= until {
            let next = activities[index].advance(to: time, writer: &writer, sink: &sink)
            scheduler.rescheduleEarliest(index, at: next)
            woken += 1
        }
        return woken
    }

    /// Applies a triggered beat to one activity at `now`
    /// (see ``ActivityEngine/trigger(_:input:at:writer:sink:advancing:)``).
    /// Everything due by `now` in every activity is played first, so pushes stay in time order.
    public mutating func trigger<Sink: PushSink>(
        _ beatID: String, activity index: Int, input: StateValue?, at now: Millis, into sink: inout Sink
    ) -> ActivityEngine.TriggerOutcome {
        guard activities.indices.contains(index) else { return .unknownBeat }
        runGeneric(until: now, into: &sink)
        var writer = Self.writer()
        let outcome = activities[index].trigger(beatID, input: input, at: now, writer: &writer, sink: &sink)
        scheduler.schedule(index, at: activities[index].nextWake)
        sink.batchEnded()
        return outcome
    }

    /// Applies an external change to one activity at `now`
    /// (see ``ActivityEngine/apply(_:at:writer:sink:advancing:)``), after playing everything due by `now`. Returns nil when there is no such activity.
    public mutating func apply<Sink: PushSink>(
        _ change: ExternalChange, activity index: Int, at now: Millis, into sink: inout Sink
    ) -> ActivityEngine.ChangeOutcome? {
        guard activities.indices.contains(index) else { return nil }
        runGeneric(until: now, into: &sink)
        var writer = Self.writer()
        let outcome = activities[index].apply(change, at: now, writer: &writer, sink: &sink)
        scheduler.schedule(index, at: activities[index].nextWake)
        sink.batchEnded()
        return outcome
    }

    /// Ends every active activity now, with what it shows and an immediate dismissal, after
    /// playing everything due by `now`.
    public mutating func stop<Sink: PushSink>(at now: Millis, into sink: inout Sink) {
        runGeneric(until: now, into: &sink)
        var writer = Self.writer()
        for index in activities.indices {
            activities[index].stop(at: now, writer: &writer, sink: &sink)
            scheduler.schedule(index, at: activities[index].nextWake)
        }
        sink.batchEnded()
    }

    /// A scratch buffer for payloads: room for the largest one, so it never grows.
    private static func writer() -> JSONWriter { JSONWriter(capacity: PayloadLimits.broadcast + 1024) }
}
