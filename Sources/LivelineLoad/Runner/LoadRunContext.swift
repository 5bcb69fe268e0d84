import Liveline

/// What every run mode shares: the configuration, the test's clock start, and the places a
/// running test reports to (the progress board, the run's start instant, the delivery recorder).
///
/// **Concurrency.** A value of references to locked boxes; any thread may read or post.
struct LoadRunContext: Sendable {
    let configuration: LoadConfiguration
    /// The test's clock start, UNIX milliseconds.
    let start: Millis
    let board: ProgressBoard
    /// When the run's clock started (after setup), in ``MicroClock`` microseconds.
    let runStart = AtomicMicros()
    /// A networked run's recorder, once it exists, for ``LoadRunner/progress()``.
    let recorder = RecorderSlot()

    /// The engine for each copy this run plays, with run ids from 0; the stories start `delay`
    /// milliseconds after ``start`` (the setup a real-clock run waited for).
    func makeEngines(copies: [Int], delay: Millis = 0) -> [ActivityEngine] {
        let total = configuration.broadcast?.channels ?? configuration.activities
        let limit = configuration.broadcast == nil ? PayloadLimits.device : PayloadLimits.broadcast
        var engines: [ActivityEngine] = []
        engines.reserveCapacity(copies.count)
        for (id, copy) in copies.enumerated() {
            let program = configuration.mix.assignment(ofCopy: copy).program
            let arrival = start + delay + configuration.arrivals.offset(ofCopy: copy, total: total)
            engines.append(
                ActivityEngine(program: program, id: id, copy: copy, scenarioStart: arrival, payloadLimit: limit))
        }
        return engines
    }

    /// When the time limit ends, on the wall clock in milliseconds (`Millis.max` without one):
    /// `began` (microseconds) rounded up to its millisecond, so the limit never ends before the
    /// run has had all of it (rounded down, a run measured from `began` could end 1 ms short).
    func limitInstant(_ began: Int64) -> Millis {
        configuration.timeLimit.map { (began + 999) / 1000 + $0.millis } ?? .max
    }

    /// Sleeps on `clock` until `deadline` and returns the instant to play up to: what is due by
    /// now, but nothing at or past the time limit. Nil when the limit comes first (after sleeping
    /// until it) or the task is cancelled. A deadline before the limit is played however late the
    /// wake-up: on a loaded machine the sleep can overrun the limit, and the run must not end
    /// with what fell due before it unplayed.
    func sleep(until deadline: Millis, began: Int64, clock: WallClock) async -> Millis? {
        let limit = limitInstant(began)
        guard deadline < limit else {
            try? await clock.sleep(until: limit)
            return nil
        }
        do { try await clock.sleep(until: deadline) } catch { return nil }
        return min(max(deadline, clock.now()), limit - 1)
    }

    /// Whether the time limit has passed since `began` (microseconds).
    func timeIsUp(_ began: Int64) -> Bool {
        guard let limit = configuration.timeLimit else { return false }
        return MicroClock.now() - began >= limit.millis * 1000
    }

    /// A builder for this run's result, its timing started at `setupStart`.
    func resultBuilder(
        setupStart: Int64, threads: Int, latencyFrom: LoadResultBuilder.LatencyOrigin
    ) -> LoadResultBuilder {
        LoadResultBuilder(
            configuration: configuration, setupStart: setupStart, threads: threads, latencyFrom: latencyFrom)
    }
}
