import Liveline

/// The sink of a networked run: counts each push the engines produce and keeps it until the
/// runner releases it to the target. With Android in the run, a decision of an Android activity
/// becomes its FCM messages instead (``android``), and iOS's pushes are counted apart too.
///
/// Owned by the runner's task; a value, no sharing.
struct CollectingSink: PushSink {
    /// Every decision of every engine.
    var tally = PushTally()
    var pending: [Push] = []
    /// With Android in the run: the Android activities' messages, and iOS's pushes counted alone.
    var android: AndroidMessages?
    var iosTally = PushTally()

    init(android: AndroidMessages? = nil) {
        self.android = android
    }

    mutating func receive(_ push: Push, from activity: ActivityEngine) {
        tally.count(push)
        guard android != nil else {
            pending.append(push)
            return
        }
        if android?.plays(push.activity) == true {
            android?.receive(push, from: activity)
        } else {
            iosTally.count(push)
            pending.append(push)
        }
    }

    /// The earliest of the run's next deadline and the next Android message waiting for its slot.
    func nextDeadline(_ run: inout ScenarioRun) -> Millis? {
        let engines = run.nextDeadline()
        guard let held = android?.nextRelease else { return engines }
        return min(engines ?? .max, held)
    }

    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        tally.countRejected(push)
    }

    /// The pushes gathered so far, leaving the buffer empty (its storage kept for the next batch).
    mutating func take(into batch: inout [Push]) {
        batch.removeAll(keepingCapacity: true)
        swap(&batch, &pending)
    }
}

/// The sink of a real-clock run with nothing after the engine: counts, and measures how late
/// each push was produced against its due time (the engine's own lateness).
struct LatenessSink: PushSink {
    var tally = PushTally()
    var latency = LatencySamples()
    var produced = TimeSeries()
    let startMicros: Int64
    let intervalMicros: Int64

    init(startMicros: Int64, intervalMicros: Int64) {
        self.startMicros = startMicros
        self.intervalMicros = intervalMicros
    }

    mutating func receive(_ push: Push, from activity: ActivityEngine) {
        tally.count(push)
        let now = MicroClock.now()
        let index = Int(max(0, now - startMicros) / intervalMicros)
        latency.record(now - push.time * 1000, interval: index)
        produced.add(at: index)
    }

    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        tally.countRejected(push)
    }
}
