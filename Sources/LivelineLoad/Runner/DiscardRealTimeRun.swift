import Liveline

/// Discard with the real clock: one scheduler on the calling task sleeps until each deadline;
/// latency is the engine's own lateness against each push's due time.
struct DiscardRealTimeRun {
    let context: LoadRunContext

    func run() async -> LoadResult {
        let setupStart = MicroClock.now()
        let copies = Array(context.configuration.playedCopies)
        var result = context.resultBuilder(setupStart: setupStart, threads: 1, latencyFrom: .dueTime)
        var run = ScenarioRun(activities: context.makeEngines(copies: copies))
        let began = MicroClock.now()
        context.runStart.setIfUnset(began)
        result.began(at: began)
        var sink = LatenessSink(startMicros: began, intervalMicros: context.configuration.interval.millis * 1000)
        let clock = WallClock()
        while let deadline = run.nextDeadline() {
            guard let until = await context.sleep(until: deadline, began: began, clock: clock) else { break }
            run.run(until: until, into: &sink)
            context.board.post(partition: 0, produced: sink.tally.counts.produced, clock: until)
        }
        let end = MicroClock.now()
        sink.latency.finish()
        result.pushes = sink.tally.counts
        result.activities.played = copies.count
        result.activities.exhaustedBudget = sink.tally.exhaustedActivities.count
        result.activities.unfinished = run.activities.reduce(0) { $0 + ($1.nextWake == .max ? 0 : 1) }
        result.series.sent = sink.produced.values
        result.setLatencySeries(sink.latency)
        result.latency = sink.latency.histogram
        return result.build(endedAt: end)
    }
}
