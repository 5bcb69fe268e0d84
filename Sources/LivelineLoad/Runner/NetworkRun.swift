import Liveline
import LivelineAPNs
import LivelineFCM

/// A network target (the embedded mock, a mock elsewhere, APNs): one scheduler on the calling
/// task, a ``PushDelivery`` that keeps each activity's order and retries, and a
/// ``DeliveryMeasurements`` that accounts for every push and measures latency.
///
/// With Android in the run (``LoadConfiguration/platforms``), each Android activity's decisions
/// become FCM messages by Android's rules as they are made (``AndroidMessages``, in the sink) and
/// go through an ``AndroidDelivery`` to FCM (or a mock), on the same clock, the same limit of
/// what is in flight, and the same accounting, kept per platform too.
///
/// The virtual clock releases pushes as fast as back-pressure allows (``VirtualRelease``); the
/// real clock sleeps until each deadline and hands over what is due (``releaseInRealTime``).
/// Either way the run then waits for the answers still out.
struct NetworkRun {
    let context: LoadRunContext
    let endpoint: APNsEndpoint
    let signingKey: SigningKey?

    /// How long the run waits for answers after the last push, for as long as retries could take.
    private static let drainMicros: Int64 = 120_000_000

    func run() async throws(LoadError) -> LoadResult {
        let configuration = context.configuration
        let setupStart = MicroClock.now()
        let copies = Array(configuration.playedCopies)
        let virtual = configuration.clock == .virtual
        var result = context.resultBuilder(
            setupStart: setupStart, threads: 1, latencyFrom: virtual ? .releaseTime : .dueTime)
        let client: APNsClient
        do {
            client = try APNsClient(
                configuration: .init(
                    endpoint: endpoint, connections: configuration.connections, signingKey: signingKey,
                    requestTimeout: .seconds(10)))
        } catch {
            throw .targetUnavailable(target: "the connection to \(endpoint)", cause: "\(error)")
        }
        // Connected before the first push: a target nobody answers at ends the run within the
        // connection's patience, not push by push after every retry.
        do {
            try await client.connect()
        } catch {
            await client.shutdown()
            throw .targetUnavailable(target: "a connection to \(endpoint)", cause: error.problem)
        }
        let mixed = configuration.platforms.hasAndroid
        let isAndroid = mixed ? copies.map { configuration.platforms.platform(ofCopy: $0) == .android } : []
        let fcmClient: FCMClient?
        do {
            fcmClient = mixed ? try await connectFCM() : nil
        } catch {
            await client.shutdown()
            throw error
        }
        // With the real clock and no start given, the stories start when the run does, after the
        // connections and FCM's token: a slow setup must not find part of every story due at once.
        let storyDelay = !virtual && configuration.start == nil ? Millis((MicroClock.now() - setupStart) / 1000) : 0
        var run = ScenarioRun(activities: context.makeEngines(copies: copies, delay: storyDelay))
        let gate = ReleaseGate()
        let freed = FreedActivities()
        let recorder = DeliveryMeasurements(
            startMicros: MicroClock.now(), intervalMillis: configuration.interval.millis,
            countAcceptedPerActivity: configuration.broadcast != nil, androidActivities: mixed ? isAndroid : nil,
            onSettled: { activity in
                if virtual, let activity { freed.append(activity) }
                gate.signal()
            })
        let delivery = PushDelivery(
            client: client,
            configuration: .init(
                bundleID: configuration.effectiveBundleID, retry: configuration.retry,
                targetResolver: targetResolver(copies)),
            clock: WallClock(), onEvent: { recorder.record($0) })
        let android = fcmClient.map { fcm in
            AndroidDelivery(
                client: fcm, project: configuration.fcm?.project ?? "", recorder: recorder,
                target: androidTargetResolver(copies))
        }
        let began = MicroClock.now()
        context.runStart.setIfUnset(began)
        context.recorder.set(recorder)
        result.began(at: began)
        var sink = CollectingSink(android: mixed ? AndroidMessages(isAndroid: isAndroid) : nil)
        let link = NetworkLink(
            delivery: delivery, android: android, isAndroid: mixed ? isAndroid : nil, recorder: recorder, gate: gate,
            freed: freed, nowOrNever: configuration.broadcast != nil)
        let cutShort: Bool
        if virtual {
            var release = VirtualRelease(context: context, link: link, activities: copies.count)
            cutShort = await release.play(&run, sink: &sink, began: began)
        } else {
            cutShort = await releaseInRealTime(&run, sink: &sink, link: link, began: began, storyDelay: storyDelay)
        }
        await waitForAnswers(link, gate: gate)
        let end = MicroClock.now()
        // What is still out when the run ends (a setup refused, the drain time spent) is given
        // up before the clients go, so no retry reaches for a closed connection; it counts as lost.
        if link.outstanding > 0 {
            delivery.abandon(reason: link.configurationError ?? "no answer before the run ended")
            await android?.abandon()
        }
        await client.shutdown()
        await fcmClient?.shutdown()
        let finished = recorder.finish()

        result.pushes = sink.tally.counts
        result.activities.played = copies.count
        result.activities.exhaustedBudget =
            mixed ? sink.iosTally.exhaustedActivities.count : sink.tally.exhaustedActivities.count
        result.activities.unfinished = cutShort ? run.activities.reduce(0) { $0 + ($1.nextWake == .max ? 0 : 1) } : 0
        result.activities.stopped = finished.stopped.count
        for reason in finished.stopped.values {
            result.activities.stopReasons[String(reason.prefix(100)), default: 0] += 1
        }
        result.series.sent = finished.sent
        result.series.completed = finished.completed
        result.series.errors = finished.errors
        result.setLatencySeries(finished.latency)
        result.latency = finished.latency.histogram
        result.delivery = finished.counts
        result.broadcast = broadcastCounts(copies: copies, acceptedByActivity: finished.acceptedByActivity)
        if mixed, finished.platforms.count == 2, let androidCounts = sink.android?.counts {
            result.platforms = platformResults(
                ios: sink.iosTally.counts, android: androidCounts, isAndroid: isAndroid, finished: finished)
        }
        return result.build(endedAt: end)
    }

    /// The FCM client for Android's messages, signed in (an access token) and connected before
    /// the first message, as the APNs client is.
    private func connectFCM() async throws(LoadError) -> FCMClient {
        guard let destination = context.configuration.fcm else {
            throw .invalidSetting(.fcmTarget, value: nil, problem: "Android's messages need an FCM destination")
        }
        let client: FCMClient
        do {
            var configuration = destination.client
            configuration.connections = context.configuration.connections
            client = try FCMClient(configuration: configuration)
        } catch {
            throw .targetUnavailable(target: "the FCM client for \(destination.name)", cause: "\(error)")
        }
        do {
            try await client.connect()
        } catch {
            await client.shutdown()
            throw .targetUnavailable(target: "FCM at \(destination.name)", cause: "\(error)")
        }
        return client
    }

    /// Each platform's share: what its rules sent, and what the wire did with it.
    private func platformResults(
        ios pushes: LoadResult.PushCounts, android: LoadResult.PlatformResult, isAndroid: [Bool],
        finished: DeliveryMeasurements.Final
    ) -> LoadResult.PlatformResults {
        var ios = LoadResult.PlatformResult(latency: LoadResult.LatencySummary(finished.platforms[0].latency))
        let androidActivities = isAndroid.filter { $0 }.count
        ios.activities = isAndroid.count - androidActivities
        ios.produced = pushes.produced
        ios.highPriority = pushes.highPriority
        ios.normalPriority = pushes.lowPriority
        ios.bytes = pushes.bytes
        ios.largest = pushes.largestPayload
        ios.downgraded = pushes.downgraded
        ios.deferred = pushes.deferred
        ios.delivery = finished.platforms[0].counts
        var results = LoadResult.PlatformResults(ios: ios, android: android)
        results.android.activities = androidActivities
        results.android.delivery = finished.platforms[1].counts
        results.android.latency = LoadResult.LatencySummary(finished.platforms[1].latency)
        return results
    }

    /// Each Android activity's app instance: a registration token from the seed and its copy.
    private func androidTargetResolver(_ copies: [Int]) -> @Sendable (Int) -> FCMTarget {
        let seed = context.configuration.seed ?? context.configuration.mix.entries[0].scenario.seed
        return { id in
            .token(TokenSource.generatedFCMToken(seed: seed, copy: copies.indices.contains(id) ? copies[id] : id))
        }
    }

    /// Each activity's target follows from its copy number, so the delivery computes it per
    /// push instead of holding a table of a million tokens.
    private func targetResolver(_ copies: [Int]) -> @Sendable (Int) -> PushTarget? {
        let configuration = context.configuration
        let seed = configuration.seed ?? configuration.mix.entries[0].scenario.seed
        let tokens = configuration.tokens
        let broadcasts = configuration.broadcast != nil
        return { id in
            guard copies.indices.contains(id) else { return nil }
            return broadcasts
                ? .channel(BroadcastPlan.channelID(copies[id], seed: seed))
                : .device(tokens.token(forCopy: copies[id]))
        }
    }

    /// Waits until nothing is out, a delivery hit a configuration error, or the drain time ran out.
    private func waitForAnswers(_ link: NetworkLink, gate: ReleaseGate) async {
        let deadline = MicroClock.now() + Self.drainMicros
        while link.outstanding > 0, MicroClock.now() < deadline, link.configurationError == nil {
            let seen = gate.generation
            if link.outstanding == 0 { break }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await gate.wait(since: seen) }
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(100)); gate.signal()
                }
                await group.waitForAll()
            }
        }
    }

    /// Broadcast mode: pushes sent and the activity updates they carried to each channel's subscribers.
    private func broadcastCounts(copies: [Int], acceptedByActivity: [Int: Int]) -> LoadResult.BroadcastCounts? {
        guard let broadcast = context.configuration.broadcast else { return nil }
        let perChannel = broadcast.subscriberCounts(copies: 0..<context.configuration.activities)
        let subscribers = copies.map { perChannel[$0] }
        var counts = LoadResult.BroadcastCounts()
        counts.channels = copies.count
        counts.subscribers = subscribers.reduce(0, +)
        for (id, accepted) in acceptedByActivity {
            counts.pushesSent += accepted
            counts.activityUpdates += accepted * (subscribers.indices.contains(id) ? subscribers[id] : 0)
        }
        return counts
    }

    /// The real clock: sleep until each deadline and hand every push due to the delivery at
    /// once. A target slower than the story builds a queue; the delivery then supersedes waiting
    /// pushes with newer ones (newest state wins), as a careful backend would, and latency from
    /// each push's due time shows the lag. Progress is told on the test's clock, the stories'
    /// `storyDelay` taken off. Returns whether the time limit cut the run short.
    private func releaseInRealTime(
        _ run: inout ScenarioRun, sink: inout CollectingSink, link: NetworkLink, began: Int64, storyDelay: Millis
    ) async -> Bool {
        let clock = WallClock()
        var batch: [Push] = []
        var messages: [AndroidMessage] = []
        while let deadline = sink.nextDeadline(&run) {
            if link.configurationError != nil { break }
            guard let until = await context.sleep(until: deadline, began: began, clock: clock) else {
                return !Task.isCancelled
            }
            run.run(until: until, into: &sink)
            sink.take(into: &batch)
            for push in batch {
                link.recorder.released(push, intendedMicros: push.time * 1000, now: MicroClock.now())
                link.delivery.submit(link.prepare(push), flush: false)
            }
            link.delivery.flush()
            if let android = link.android {
                sink.android?.release(until: until)
                sink.android?.take(into: &messages)
                for message in messages {
                    // A stopped activity's message stays open: counted as dropped, as a push is.
                    link.recorder.released(
                        activity: message.activity, sequence: message.sequence, intendedMicros: message.time * 1000,
                        now: MicroClock.now())
                    android.submit(message)
                }
            }
            context.board.post(partition: 0, produced: sink.tally.counts.produced, clock: until - storyDelay)
        }
        return false
    }
}

/// What a networked run's release loops share: where pushes and messages go, who accounts for
/// them, and how answers come back.
struct NetworkLink {
    let delivery: PushDelivery
    /// With Android in the run: where Android's messages go.
    let android: AndroidDelivery?
    /// With Android in the run: whether each activity (by run id) plays on Android.
    let isAndroid: [Bool]?
    let recorder: DeliveryMeasurements
    let gate: ReleaseGate
    let freed: FreedActivities
    /// Broadcast mode: the channels are storage policy 0 (no message kept, the higher budget),
    /// on which APNs requires `apns-expiration: 0`.
    let nowOrNever: Bool

    func prepare(_ push: Push) -> Push {
        guard nowOrNever, push.expiration != 0 else { return push }
        var push = push
        push.expiration = 0
        return push
    }

    /// Whether `activity` plays on Android.
    func isAndroid(_ activity: Int) -> Bool {
        guard let isAndroid, isAndroid.indices.contains(activity) else { return false }
        return isAndroid[activity]
    }

    /// Pushes and messages in flight or waiting.
    var outstanding: Int { delivery.outstanding + (android?.outstanding ?? 0) }

    /// The setup problem that ended the run, from either platform.
    var configurationError: String? { delivery.configurationError ?? android?.configurationError }
}
