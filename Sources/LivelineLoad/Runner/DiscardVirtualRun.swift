import Foundation
import Liveline

/// Discard with the virtual clock: the engines alone, as fast as the cores allow.
///
/// The activities are dealt to ``LoadConfiguration/threads`` dedicated threads, each a disjoint
/// part with its own scheduler and a ``DiscardSink`` (specialized in the engine module: no
/// per-push call through a generic). Nothing is recorded per push beyond the sink's counters;
/// progress is posted per slice of story time.
///
/// **Concurrency.** Each partition runs on a `Thread` of its own (CPU-bound work must not hold
/// the cooperative pool, which the progress ticker and NIO callbacks need) and shares only the
/// context's locked boxes.
struct DiscardVirtualRun {
    let context: LoadRunContext

    /// What one partition counted.
    private struct PartitionOutcome: Sendable {
        var counts: LoadResult.PushCounts
        var exhausted: Int
        var unfinished: Int
        var series: [Int]
        var played: Int
    }

    func run() async -> LoadResult {
        let setupStart = MicroClock.now()
        let copies = Array(context.configuration.playedCopies)
        let threads = max(1, min(context.configuration.threads, copies.count))
        var result = context.resultBuilder(setupStart: setupStart, threads: threads, latencyFrom: .none)
        // Partitions build their own engines (in parallel), then wait for every partition to be
        // built so the run's clock starts once, after setup.
        let ready = StartLine(parties: threads)
        let context = context
        let outcomes: [PartitionOutcome] = await withTaskGroup(of: PartitionOutcome.self) { group in
            for partition in 0..<threads {
                let mine = stride(from: partition, to: copies.count, by: threads).map { copies[$0] }
                group.addTask {
                    await Self.onThread { Self.play(mine, partition: partition, context: context, ready: ready) }
                }
            }
            var all: [PartitionOutcome] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let end = MicroClock.now()
        result.runBegan = context.runStart.value ?? setupStart
        var series: [Int] = []
        for outcome in outcomes {
            result.pushes.add(outcome.counts)
            result.activities.played += outcome.played
            result.activities.exhaustedBudget += outcome.exhausted
            result.activities.unfinished += outcome.unfinished
            series = TimeSeries.sum(series, outcome.series)
        }
        result.series.sent = series
        return result.build(endedAt: end)
    }

    /// One partition: builds its engines, waits at the start line, then plays a second of story
    /// time at a time, posting progress after each.
    private static func play(
        _ copies: [Int], partition: Int, context: LoadRunContext, ready: StartLine
    ) -> PartitionOutcome {
        var run = ScenarioRun(activities: context.makeEngines(copies: copies))
        let began = ready.arriveAndWait()
        context.runStart.setIfUnset(began)
        let interval = context.configuration.interval.millis * 1000
        let timeLimit = context.configuration.timeLimit?.millis
        var sink = DiscardSink()
        var series = TimeSeries()
        var reported = 0
        let slice: Millis = 1000
        while let deadline = run.nextDeadline() {
            let until = deadline > Millis.max - slice ? Millis.max : deadline + slice - 1
            run.run(until: until, into: &sink)
            let now = MicroClock.now()
            series.add(sink.pushes - reported, at: Int((now - began) / interval))
            reported = sink.pushes
            context.board.post(partition: partition, produced: sink.pushes, clock: until)
            if let timeLimit, now - began >= timeLimit * 1000 { break }
        }
        let unfinished = run.activities.reduce(0) { $0 + ($1.lifecycle == .ended || $1.nextWake == .max ? 0 : 1) }
        return PartitionOutcome(
            counts: PushTally.counts(of: sink), exhausted: sink.exhaustedActivities.count,
            unfinished: unfinished, series: series.values, played: copies.count)
    }

    /// Runs `body` on a new thread with a large stack.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
