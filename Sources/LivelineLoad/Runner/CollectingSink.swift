import Liveline

/// The sink of a networked run: counts each push the engines produce and keeps it until the
/// runner releases it to the target.
///
/// Owned by the runner's task; a value, no sharing.
struct CollectingSink: PushSink {
    var tally = PushTally()
    var pending: [Push] = []

    mutating func receive(_ push: Push, from activity: ActivityEngine) {
        tally.count(push)
        pending.append(push)
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
