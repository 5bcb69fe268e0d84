import Foundation
import Liveline
import LivelineAPNs
import NIOCore
import NIOPosix

/// Plays a load test: builds one engine per activity (or per channel in broadcast mode), drives
/// them from one scheduler per thread, hands their pushes to the target, and returns a
/// ``LoadResult``.
///
/// Three paths, picked from the configuration:
/// - **Discard, virtual clock.** The engines run on ``LoadConfiguration/threads`` dedicated
///   threads, each a disjoint part of the activities with its own scheduler and a
///   ``DiscardSink`` (specialized in the engine module: no per-push call through a generic).
///   Nothing is recorded per push beyond the sink's counters; progress is posted per slice of
///   story time.
/// - **Network target.** One scheduler on the calling task. The real clock sleeps until each
///   deadline; the virtual clock plays deadline after deadline and releases pushes as fast as
///   back-pressure allows: at most ``LoadConfiguration/maxInFlight`` unanswered. A
///   ``PushDelivery`` keeps each activity's order and retries; a ``DeliveryRecorder`` accounts
///   for every push and measures latency.
/// - **Discard, real clock.** One scheduler on the calling task; latency is the engine's own
///   lateness against each push's due time.
///
/// **Concurrency.** ``run()`` is called once, from one task. ``progress()`` may be called from
/// any task while it runs. The runner shares only the locked progress board and the recorder.
public final class LoadRunner: Sendable {
    public let configuration: LoadConfiguration
    private let startClock: Millis
    private let board: ProgressBoard
    private let recorderBox = RecorderSlot()

    public init(configuration: LoadConfiguration) throws(LoadError) {
        try configuration.validate()
        self.configuration = configuration
        let start = configuration.start ?? WallClock().now()
        self.startClock = start
        let partitions = Self.usesPartitions(configuration) ? configuration.threads : 1
        let longest = configuration.mix.entries.flatMap(\.programs).map { $0.offset + ($0.storyLength ?? 0) }.max() ?? 0
        let lastArrival = configuration.arrivals.lastOffset(total: configuration.broadcast?.channels ?? configuration.activities)
        board = ProgressBoard(partitions: partitions, startClock: start, endClock: start + lastArrival + longest)
    }

    private static func usesPartitions(_ configuration: LoadConfiguration) -> Bool {
        if case .discard = configuration.target, configuration.clock == .virtual { return true }
        return false
    }

    /// The test's clock start, UNIX milliseconds.
    public var start: Millis { startClock }

    // MARK: Progress

    private let runStartMicros = AtomicMicros()

    /// Where the run is now.
    public func progress() -> LoadProgress {
        var progress = LoadProgress()
        let (produced, fraction) = board.read()
        progress.produced = produced
        progress.submitted = produced
        progress.fraction = fraction
        if let began = runStartMicros.value { progress.elapsedMillis = (MicroClock.now() - began) / 1000 }
        if let recorder = recorderBox.value {
            let snapshot = recorder.snapshot()
            progress.networked = true
            progress.submitted = snapshot.submitted
            progress.completed = snapshot.completed
            progress.inFlight = snapshot.open
            progress.errors = snapshot.errors
        }
        return progress
    }

    // MARK: Running

    /// Plays the test to the end (or ``LoadConfiguration/timeLimit``) and returns what it measured.
    public func run() async throws(LoadError) -> LoadResult {
        switch configuration.target {
        case .discard where configuration.clock == .virtual:
            return await runPartitioned()
        case .discard:
            return await runDiscardRealTime()
        case .endpoint(let endpoint, let key, _):
            return try await runNetworked(endpoint: endpoint, signingKey: key)
        }
    }

    /// The engine for each copy this run plays, with run ids from 0.
    func makeEngines(copies: [Int]) -> [ActivityEngine] {
        let total = configuration.broadcast?.channels ?? configuration.activities
        let limit = configuration.broadcast == nil ? PayloadLimits.device : PayloadLimits.broadcast
        var engines: [ActivityEngine] = []
        engines.reserveCapacity(copies.count)
        for (id, copy) in copies.enumerated() {
            let program = configuration.mix.assignment(ofCopy: copy).program
            let start = startClock + configuration.arrivals.offset(ofCopy: copy, total: total)
            engines.append(ActivityEngine(program: program, id: id, copy: copy, scenarioStart: start, payloadLimit: limit))
        }
        return engines
    }

    // MARK: Discard, virtual clock

    private struct PartitionOutcome: Sendable {
        var counts: LoadResult.PushCounts
        var exhausted: Int
        var unfinished: Int
        var series: [Int]
        var played: Int
    }

    private func runPartitioned() async -> LoadResult {
        let setupStart = MicroClock.now()
        let copies = Array(configuration.playedCopies)
        let threads = max(1, min(configuration.threads, copies.count))
        let timeLimit = configuration.timeLimit
        let interval = configuration.intervalMillis * 1000
        let startedAt = UTCTime.format(WallClock().now())
        // Partitions build their own engines (in parallel), then wait for every partition to be
        // built so the run's clock starts once, after setup.
        let ready = StartLine(parties: threads)
        let outcomes: [PartitionOutcome] = await withTaskGroup(of: PartitionOutcome.self) { group in
            for partition in 0..<threads {
                group.addTask {
                    await Self.onThread {
                        let mine = stride(from: partition, to: copies.count, by: threads).map { copies[$0] }
                        var run = ScenarioRun(activities: self.makeEngines(copies: mine))
                        let began = ready.arriveAndWait()
                        self.runStartMicros.setIfUnset(began)
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
                            self.board.post(partition: partition, produced: sink.pushes, clock: until)
                            if let timeLimit, now - began >= timeLimit * 1000 { break }
                        }
                        let unfinished = run.activities.reduce(0) { $0 + ($1.lifecycle == .ended || $1.nextWake == .max ? 0 : 1) }
                        return PartitionOutcome(
                            counts: PushTally.counts(of: sink), exhausted: sink.exhaustedActivities.count,
                            unfinished: unfinished, series: series.values, played: mine.count)
                    }
                }
            }
            var all: [PartitionOutcome] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let end = MicroClock.now()
        let began = runStartMicros.value ?? setupStart
        var counts = LoadResult.PushCounts()
        var activities = LoadResult.ActivityCounts()
        var series: [Int] = []
        for outcome in outcomes {
            counts.add(outcome.counts)
            activities.played += outcome.played
            activities.exhaustedBudget += outcome.exhausted
            activities.unfinished += outcome.unfinished
            series = TimeSeries.sum(series, outcome.series)
        }
        var resultSeries = LoadResult.Series()
        resultSeries.intervalMillis = configuration.intervalMillis
        resultSeries.sent = series
        return LoadResult(
            startedAt: startedAt, durationMillis: max(1, (end - began) / 1000), config: resultConfig(threads: threads, latencyFrom: "none"),
            pushes: counts, activities: activities, delivery: nil, broadcast: nil, device: nil,
            latency: LoadResult.LatencySummary(EncodedHistogram.emptyLatencyHistogram()), series: resultSeries,
            resources: .init(peakRSSBytes: ResourceUsage.peakResidentBytes(), cpuMillis: ResourceUsage.cpuMillis(), setupMillis: max(0, (began - setupStart) / 1000)))
    }

    /// Runs `body` on a new thread (CPU-bound work must not hold the cooperative pool, which
    /// the progress ticker and NIO callbacks need).
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    // MARK: Discard, real clock

    private func runDiscardRealTime() async -> LoadResult {
        let setupStart = MicroClock.now()
        let copies = Array(configuration.playedCopies)
        var run = ScenarioRun(activities: makeEngines(copies: copies))
        let began = MicroClock.now()
        runStartMicros.setIfUnset(began)
        let startedAt = UTCTime.format(WallClock().now())
        var sink = LatenessSink(startMicros: began, intervalMicros: configuration.intervalMillis * 1000)
        let clock = WallClock()
        while let deadline = run.nextDeadline() {
            do { try await clock.sleep(until: min(deadline, limitInstant(began))) } catch { break }
            if timeIsUp(began) { break }
            let until = max(deadline, clock.now())
            run.run(until: until, into: &sink)
            board.post(partition: 0, produced: sink.tally.counts.produced, clock: until)
        }
        let end = MicroClock.now()
        sink.latency.finish()
        var activities = LoadResult.ActivityCounts()
        activities.played = copies.count
        activities.exhaustedBudget = sink.tally.exhaustedActivities.count
        activities.unfinished = run.activities.reduce(0) { $0 + ($1.nextWake == .max ? 0 : 1) }
        var series = LoadResult.Series()
        series.intervalMillis = configuration.intervalMillis
        series.sent = sink.produced.values
        series.latencyP50 = sink.latency.p50
        series.latencyP90 = sink.latency.p90
        series.latencyP99 = sink.latency.p99
        series.latencyMax = sink.latency.max
        return LoadResult(
            startedAt: startedAt, durationMillis: max(1, (end - began) / 1000), config: resultConfig(threads: 1, latencyFrom: "due-time"),
            pushes: sink.tally.counts, activities: activities, delivery: nil, broadcast: nil, device: nil,
            latency: LoadResult.LatencySummary(sink.latency.histogram), series: series,
            resources: .init(peakRSSBytes: ResourceUsage.peakResidentBytes(), cpuMillis: ResourceUsage.cpuMillis(), setupMillis: max(0, (began - setupStart) / 1000)))
    }

    // MARK: Network

    private func runNetworked(endpoint: APNsEndpoint, signingKey: SigningKey?) async throws(LoadError) -> LoadResult {
        let setupStart = MicroClock.now()
        let copies = Array(configuration.playedCopies)
        let seed = configuration.seed ?? configuration.mix.entries[0].scenario.seed
        let client: APNsClient
        do {
            client = try APNsClient(configuration: .init(
                endpoint: endpoint, connections: configuration.connections, signingKey: signingKey, requestTimeout: .seconds(10)))
        } catch {
            throw .targetUnavailable(target: "the connection to \(endpoint)", cause: "\(error)")
        }
        let gate = ReleaseGate()
        let freed = FreedActivities()
        let virtual = configuration.clock == .virtual
        var engines = makeEngines(copies: copies)
        let began = MicroClock.now()
        let recorder = DeliveryRecorder(
            startMicros: began, intervalMillis: configuration.intervalMillis,
            countAcceptedPerActivity: configuration.broadcast != nil,
            onSettled: { activity in
                if virtual, let activity { freed.append(activity) }
                gate.signal()
            })
        // Each activity's target follows from its copy number, so the delivery computes it per
        // push instead of holding a table of a million tokens.
        let tokens = configuration.tokens
        let broadcasts = configuration.broadcast != nil
        let targetResolver: @Sendable (Int) -> PushTarget? = { id in
            guard copies.indices.contains(id) else { return nil }
            return broadcasts
                ? .channel(BroadcastPlan.channelID(copies[id], seed: seed))
                : .device(tokens.token(forCopy: copies[id]))
        }
        let delivery = PushDelivery(
            client: client,
            configuration: .init(bundleID: configuration.effectiveBundleID, retry: configuration.retry, targetResolver: targetResolver),
            clock: WallClock(), onEvent: { recorder.record($0) })
        var subscribers: [Int] = []
        if let broadcast = configuration.broadcast {
            let counts = broadcast.subscriberCounts(copies: 0..<configuration.activities)
            subscribers = copies.map { counts[$0] }
        }
        var run = ScenarioRun(activities: engines)
        engines = []
        let runBegan = MicroClock.now()
        runStartMicros.setIfUnset(runBegan)
        recorderBox.set(recorder)
        let startedAt = UTCTime.format(WallClock().now())
        var sink = CollectingSink()
        let network = Network(delivery: delivery, recorder: recorder, gate: gate, freed: freed, nowOrNever: configuration.broadcast != nil)
        let cutShort: Bool
        if virtual {
            cutShort = await playVirtual(&run, sink: &sink, network: network, began: runBegan, activities: copies.count)
        } else {
            cutShort = await playReal(&run, sink: &sink, network: network, began: runBegan)
        }
        // Wait for the answers still out, for as long as retries could take.
        let drainDeadline = MicroClock.now() + 120_000_000
        while delivery.outstanding > 0, MicroClock.now() < drainDeadline, delivery.configurationError == nil {
            let seen = gate.generation
            if delivery.outstanding == 0 { break }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await gate.wait(since: seen) }
                group.addTask { try? await Task.sleep(for: .milliseconds(100)); gate.signal() }
                await group.waitForAll()
            }
        }
        let end = MicroClock.now()
        await client.shutdown()
        let finished = recorder.finish()
        var activities = LoadResult.ActivityCounts()
        activities.played = copies.count
        activities.exhaustedBudget = sink.tally.exhaustedActivities.count
        activities.unfinished = cutShort ? run.activities.reduce(0) { $0 + ($1.nextWake == .max ? 0 : 1) } : 0
        activities.stopped = finished.stopped.count
        for reason in finished.stopped.values { activities.stopReasons[String(reason.prefix(100)), default: 0] += 1 }
        var series = LoadResult.Series()
        series.intervalMillis = configuration.intervalMillis
        series.sent = finished.sent
        series.completed = finished.completed
        series.errors = finished.errors
        series.latencyP50 = finished.latency.p50
        series.latencyP90 = finished.latency.p90
        series.latencyP99 = finished.latency.p99
        series.latencyMax = finished.latency.max
        var broadcastCounts: LoadResult.BroadcastCounts?
        if configuration.broadcast != nil {
            var counts = LoadResult.BroadcastCounts()
            counts.channels = copies.count
            counts.subscribers = subscribers.reduce(0, +)
            for (id, accepted) in finished.acceptedByActivity {
                counts.pushesSent += accepted
                counts.activityUpdates += accepted * (subscribers.indices.contains(id) ? subscribers[id] : 0)
            }
            broadcastCounts = counts
        }
        return LoadResult(
            startedAt: startedAt, durationMillis: max(1, (end - runBegan) / 1000),
            config: resultConfig(threads: 1, latencyFrom: virtual ? "release-time" : "due-time"),
            pushes: sink.tally.counts, activities: activities, delivery: finished.counts, broadcast: broadcastCounts, device: nil,
            latency: LoadResult.LatencySummary(finished.latency.histogram), series: series,
            resources: .init(peakRSSBytes: ResourceUsage.peakResidentBytes(), cpuMillis: ResourceUsage.cpuMillis(), setupMillis: max(0, (runBegan - setupStart) / 1000)))
    }

    /// What the networked loops share.
    private struct Network {
        let delivery: PushDelivery
        let recorder: DeliveryRecorder
        let gate: ReleaseGate
        let freed: FreedActivities
        /// Broadcast mode: the channels are storage policy 0 (no message kept, the higher
        /// budget), on which APNs requires `apns-expiration: 0`.
        let nowOrNever: Bool

        func prepare(_ push: Push) -> Push {
            guard nowOrNever, push.expiration != 0 else { return push }
            var push = push
            push.expiration = 0
            return push
        }
    }

    /// When the time limit ends, on the wall clock in milliseconds (`Millis.max` without one).
    private func limitInstant(_ began: Int64) -> Millis {
        configuration.timeLimit.map { began / 1000 + $0 } ?? .max
    }

    private func timeIsUp(_ began: Int64) -> Bool {
        guard let limit = configuration.timeLimit else { return false }
        return MicroClock.now() - began >= limit * 1000
    }

    /// The virtual clock against a network target: deadline after deadline, as fast as the
    /// target answers. An activity has at most one push out at a time; its next push waits
    /// (in order) until the previous one is answered, as a story played in real time would
    /// space them. Otherwise the virtual clock would hand the delivery a whole match at once
    /// and measure nothing but coalescing. At most ``LoadConfiguration/maxInFlight`` pushes are
    /// out, and the scheduler stops producing while too many wait (it produces a slice at a
    /// time, even of one instant, so the buffer stays bounded however many activities share a
    /// deadline). Returns whether the time limit cut the run short.
    private func playVirtual(_ run: inout ScenarioRun, sink: inout CollectingSink, network: Network, began: Int64, activities: Int) async -> Bool {
        let maxInFlight = configuration.maxInFlight
        let bufferLimit = max(10_000, maxInFlight * 8)
        var busy = [Bool](repeating: false, count: activities)
        var queued: [Int: [Push]] = [:]
        var ready: [Push] = []
        var readyHead = 0
        var buffered = 0
        var inFlight = 0
        var batch: [Push] = []
        var freedBatch: [Int] = []
        var clock: Millis = start
        var cutShort = false

        func release(_ push: Push) {
            let now = MicroClock.now()
            network.recorder.released(push, intendedMicros: now, now: now)
            inFlight += 1
            if network.delivery.stopReason(for: push.activity) != nil {
                // The target stopped this activity (410, bad token): the delivery would drop the
                // push silently, so it is accounted as dropped and the activity moves on.
                network.freed.append(push.activity)
            } else {
                network.delivery.submit(network.prepare(push))
            }
        }
        while true {
            let seen = network.gate.generation
            // Answers: free their activities, moving each one's next push up.
            network.freed.take(into: &freedBatch)
            for activity in freedBatch {
                inFlight -= 1
                if var list = queued[activity], !list.isEmpty {
                    ready.append(list.removeFirst())
                    queued[activity] = list.isEmpty ? nil : list
                } else {
                    busy[activity] = false
                }
            }
            // Release what may go.
            while inFlight < maxInFlight, readyHead < ready.count {
                release(ready[readyHead])
                readyHead += 1
                buffered -= 1
            }
            if readyHead > 4096, readyHead * 2 > ready.count {
                ready.removeFirst(readyHead)
                readyHead = 0
            }
            if network.delivery.configurationError != nil { break }
            if !cutShort, timeIsUp(began) { cutShort = true }
            // Produce more while the buffer has room.
            if !cutShort, buffered < bufferLimit, let deadline = run.nextDeadline() {
                // A slice of what is due: with every activity due at the same instant, producing
                // them all at once would buffer a push (and its payload) per activity.
                run.run(until: deadline, wakingAtMost: bufferLimit - buffered, into: &sink)
                clock = deadline
                sink.take(into: &batch)
                for push in batch {
                    buffered += 1
                    if busy[push.activity] {
                        queued[push.activity, default: []].append(push)
                    } else {
                        busy[push.activity] = true
                        ready.append(push)
                    }
                }
                board.post(partition: 0, produced: sink.tally.counts.produced, clock: clock)
                continue
            }
            if inFlight == 0, readyHead == ready.count, cutShort || run.nextDeadline() == nil { break }
            if inFlight == 0, readyHead == ready.count, buffered > 0 { break }
            await network.gate.wait(since: seen)
        }
        return cutShort
    }

    /// The real clock against a network target: sleep until each deadline and hand every
    /// push due to the delivery at once. A target slower than the story builds a queue; the
    /// delivery then supersedes waiting pushes with newer ones (newest state wins), as a
    /// careful backend would, and latency from each push's due time shows the lag.
    private func playReal(_ run: inout ScenarioRun, sink: inout CollectingSink, network: Network, began: Int64) async -> Bool {
        let clock = WallClock()
        var batch: [Push] = []
        while let deadline = run.nextDeadline() {
            if network.delivery.configurationError != nil { break }
            do { try await clock.sleep(until: min(deadline, limitInstant(began))) } catch { break }
            if timeIsUp(began) { return true }
            let until = max(deadline, clock.now())
            run.run(until: until, into: &sink)
            sink.take(into: &batch)
            for push in batch {
                network.recorder.released(push, intendedMicros: push.time * 1000, now: MicroClock.now())
                network.delivery.submit(network.prepare(push), flush: false)
            }
            network.delivery.flush()
            board.post(partition: 0, produced: sink.tally.counts.produced, clock: until)
        }
        return false
    }

    // MARK: Result

    private func resultConfig(threads: Int, latencyFrom: String) -> LoadResult.Config {
        let copies = Array(configuration.playedCopies)
        let counted: [Int]
        if configuration.broadcast != nil {
            // Subscribers of this run's channels, by the scenario their channel plays.
            let broadcast = configuration.broadcast!
            let perChannel = broadcast.subscriberCounts(copies: 0..<configuration.activities)
            var byEntry = Array(repeating: 0, count: configuration.mix.entries.count)
            for channel in copies { byEntry[configuration.mix.assignment(ofCopy: channel).entry] += perChannel[channel] }
            counted = byEntry
        } else {
            counted = configuration.mix.counts(copies: copies)
        }
        let scenarios = configuration.mix.entries.enumerated().map { index, entry in
            LoadResult.Config.ScenarioEntry(file: entry.scenario.file, name: entry.scenario.name, weight: entry.weight, activities: counted[index])
        }
        var config = LoadResult.Config(
            scenarios: scenarios, activities: configuration.activities, shard: configuration.shard.description,
            shardActivities: counted.reduce(0, +), arrivals: "all-at-once", seed: configuration.seed, clock: "virtual", speed: 1,
            target: configuration.target.name, threads: threads, latencyFrom: latencyFrom)
        switch configuration.arrivals {
        case .allAtOnce: break
        case .ramp(let duration):
            config.arrivals = "ramp"
            config.rampMillis = duration
        case .rate(let perSecond):
            config.arrivals = "rate"
            config.ratePerSecond = perSecond
        }
        if case .real(let speed) = configuration.clock {
            config.clock = "real"
            config.speed = speed
        }
        if case .endpoint(let endpoint, _, _) = configuration.target {
            config.transport = endpoint.tls ? "tls" : "h2c"
            config.maxInFlight = configuration.maxInFlight
            config.connections = configuration.connections
        }
        config.channels = configuration.broadcast?.channels
        config.timeLimitMillis = configuration.timeLimit
        return config
    }
}
