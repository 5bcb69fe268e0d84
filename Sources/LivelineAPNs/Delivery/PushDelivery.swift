import LivelineCore
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Sends the engine's pushes through an ``APNsClient``, keeping each activity's order and
/// never sending stale content. The live session (`liveline play`) and the load runner's network
/// runs use it; the bridge does not: it keeps its pushes in its store's outbox and sends them
/// with its own sender, so that they survive a restart.
///
/// - **Order is sacred.** An activity has at most one push in flight. A push that comes while
///   another is in flight waits; a newer one replaces it (coalescing, newest state wins).
/// - **Answers by ``AnswerPolicy``**, the one the bridge's senders follow too (docs/answers.md).
///   429, 5xx and lost connections are retried with exponential backoff and jitter
///   (``RetryPolicy``), or after the `Retry-After` a proxy gave; `503 Shutdown` and GOAWAY on a
///   fresh connection (the client retires the old one). When a retry falls due and a newer push
///   is waiting, the newer push goes instead, with its fresh timestamp; it inherits the older
///   push's alert and priority if it has none, so a goal's alert is not lost to a minute tick.
/// - **Gone tokens.** 410, `BadDeviceToken` and `DeviceTokenNotForTopic` stop that activity
///   only; the reason is reported (for `BadDeviceToken`, with the hint that the token may be
///   of the other environment).
/// - **Configuration errors** (topic, key, environment, a TLS certificate the client does not
///   trust) stop everything: ``configurationError`` says how to fix it.
/// - **Targets may come late.** An activity whose target is not known yet (the app reports its
///   token after the story began) keeps its newest push until ``setTarget(_:for:)``; an
///   activity started by push keeps its updates until its update token is reported.
/// - **Renewals** (`Renewal`): a renewal's two pushes are never merged or replaced, and what
///   waited before them goes first. The start goes to the push-to-start token; the end to the
///   predecessor's token, and only once APNs has taken the start; pushes of the new generation
///   (`Push.generation`) wait for the update token the successor reports. When APNs does not
///   take the start, the end is not sent (reported as abandoned) and the activity carries on
///   where it was, until the system ends it.
/// - **Retries wait on the clock** the run follows, so a test in virtual time steps through
///   back-offs without waiting.
/// - **Nothing vanishes.** ``abandon(reason:)`` reports every push still pending as
///   ``DeliveryEvent/abandoned(activity:push:reason:)`` when a run stops before they finish.
/// - **Logged** (besides the events): retries with their reason and delay, rejections, stopped
///   activities and abandoned pushes at `debug`, pushes given up and the configuration error
///   that stops delivery at `warning`; nothing for a push delivered at the first attempt.
///
/// **Memory.** State is kept per activity only while it has a push unfinished (in flight,
/// waiting or held): an idle activity, or one that has ended and whose last push was answered,
/// costs nothing but the target it was given. A run whose targets follow from the activity's
/// number passes ``Configuration/targetResolver`` and keeps no targets either.
///
/// **Concurrency.** Pushes are submitted from the engine's task and answers arrive on NIO event
/// loops; the per-activity state is a small table guarded by one lock, held only to update it,
/// never across I/O or callbacks. (An actor would cost a task hop per answer on this hot path.)
public final class PushDelivery: Sendable {
    /// What a delivery needs besides its client: the app, the retry policy, and where pushes go.
    public struct Configuration: Sendable {
        /// `apns-topic` for device pushes: `<bundle id>.push-type.liveactivity`.
        public var topic: String
        /// The bundle id, for broadcasts.
        public var bundleID: String
        /// The back-off and attempts of ``AnswerPolicy``'s retries.
        public var retry: RetryPolicy
        /// Finds the update token an activity started by push reported, given its push-to-start
        /// token; nil when it never did. Without it, pushes wait for ``PushDelivery/setUpdateToken(_:for:)``.
        public var updateTokenResolver: (@Sendable (_ activity: Int, _ startToken: String) async -> String?)?
        /// Where an activity's pushes go when ``PushDelivery/setTarget(_:for:)`` was not told: for
        /// runs whose targets follow from the activity's number (a load test's generated tokens
        /// or channels), so that a million activities need no table of a million targets. Called
        /// for each push sent, sometimes under the delivery's lock: keep it quick, and never call
        /// back into the delivery from it. A target given to `setTarget` wins.
        public var targetResolver: (@Sendable (_ activity: Int) -> PushTarget?)?

        /// A configuration for the app `bundleID`; its topic follows from it.
        public init(
            bundleID: String, retry: RetryPolicy = RetryPolicy(),
            updateTokenResolver: (@Sendable (Int, String) async -> String?)? = nil,
            targetResolver: (@Sendable (Int) -> PushTarget?)? = nil
        ) {
            self.topic = LiveActivityTopic.topic(forBundleID: bundleID)
            self.bundleID = bundleID
            self.retry = retry
            self.updateTokenResolver = updateTokenResolver
            self.targetResolver = targetResolver
        }
    }

    /// What is kept for an activity while one of its pushes is unfinished. The entry goes when
    /// the last one is answered, so an idle activity, and one that has ended, costs nothing here:
    /// a load test of a million activities keeps entries only for the pushes it has out.
    private struct Unfinished {
        var inFlight: Push
        var attempts = 1
        /// Pushes that go after `inFlight`, in order, never merged: a renewal's two, and what
        /// waited before them.
        var queued: [Push] = []
        /// The newest push submitted after them while `inFlight` was out (older ones were merged into it).
        var waiting: Push?
        /// The in-flight push is held until the target or the update token is known.
        var heldForToken = false

        init(_ push: Push) { inFlight = push }

        /// How many pushes wait behind the one in flight.
        var behind: Int { queued.count + (waiting == nil ? 0 : 1) }

        /// Puts the next push in flight, if one waits: the first queued, else the newest.
        mutating func takeNext() -> Bool {
            if !queued.isEmpty {
                inFlight = queued.removeFirst()
            } else if let waiting {
                inFlight = waiting
                self.waiting = nil
            } else {
                return false
            }
            attempts = 1
            heldForToken = false
            return true
        }
    }

    private struct State {
        /// Targets given to ``PushDelivery/setTarget(_:for:)``, kept for the activity's life so
        /// that a push that comes late still goes where its activity's went.
        var targets: [Int: PushTarget] = [:]
        /// After a push-to-start: the update token each started activity reported (after a
        /// renewal, the successor's: see `renewals`).
        var updateTokens: [Int: String] = [:]
        /// The routes of activities that renewed, and only theirs.
        var renewals: [Int: RenewalRoute] = [:]
        /// Activities stopped by APNs (410, bad token), with why; nothing more is sent to them.
        var stopped: [Int: String] = [:]
        /// Activities with a push not yet finished, and only those.
        var unfinished: [Int: Unfinished] = [:]
        /// Pushes accepted and not yet finished (delivered, rejected, dropped or superseded).
        var outstanding = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var configurationError: String?
        var random = SeededRandom.mix(0x6465_6c69)
        /// Bumped by ``PushDelivery/abandon(reason:)``: retries scheduled before it are void.
        var epoch = 0

        /// The generation on the device a push is for (its own, unless its renewal failed).
        func generation(of push: Push) -> Int {
            renewals[push.activity]?.effective(push.generation) ?? push.generation
        }

        /// The reported update token for `push`'s generation, if known.
        func updateToken(for push: Push) -> String? {
            guard let route = renewals[push.activity] else {
                return push.generation == 0 ? updateTokens[push.activity] : nil
            }
            return route.token(for: route.effective(push.generation), reported: updateTokens[push.activity])
        }
    }

    /// What the delivery was made with.
    public let configuration: Configuration
    private let policy: AnswerPolicy
    private let client: APNsClient
    private let clock: any EngineClock
    private let logger: Logger
    private let onEvent: @Sendable (DeliveryEvent) -> Void
    private let state = NIOLockedValueBox(State())

    /// A delivery sending through `client`.
    ///
    /// - Parameters:
    ///   - client: the connection to APNs (or the mock) the pushes go through.
    ///   - configuration: the app's topic, the retry policy and the resolvers for targets and tokens.
    ///   - clock: for latencies, measured from each push's due time, and for retry back-offs.
    ///   - logger: where retries and failures are logged; the client's logger when nil.
    ///   - onEvent: called for every ``DeliveryEvent``, from any thread; keep it quick.
    public init(
        client: APNsClient, configuration: Configuration, clock: any EngineClock = WallClock(),
        logger: Logger? = nil, onEvent: @escaping @Sendable (DeliveryEvent) -> Void = { _ in }
    ) {
        self.client = client
        self.configuration = configuration
        policy = AnswerPolicy(retry: configuration.retry)
        self.clock = clock
        self.logger = logger ?? client.logger
        self.onEvent = onEvent
    }

    /// Where activity `activity`'s pushes go. A push submitted before its target is known waits
    /// (the newest one, carrying what the older ones mattered for) and goes now.
    public func setTarget(_ target: PushTarget, for activity: Int) {
        var event: DeliveryEvent?
        let resolver = configuration.targetResolver
        let held = state.withLockedValue { state -> Push? in
            let hadTarget = state.targets[activity] != nil
            state.targets[activity] = target
            guard state.unfinished[activity]?.heldForToken == true, !hadTarget, resolver?(activity) == nil else {
                return nil
            }
            return Self.release(activity, in: &state, event: &event)
        }
        if let event { onEvent(event) }
        if let held { transmit(held) }
    }

    /// Ends an activity's wait (for a target or a token) and returns the push to send: the
    /// newest, carrying what the held one mattered for, unless the held one is a start.
    private static func release(_ key: Int, in state: inout State, event: inout DeliveryEvent?) -> Push? {
        guard var entry = state.unfinished[key], entry.heldForToken else { return nil }
        defer { state.unfinished[key] = entry }
        entry.heldForToken = false
        let held = entry.inFlight
        guard let waiting = entry.waiting, held.event != .start, !held.isRenewal, entry.queued.isEmpty else {
            return held
        }
        let merged = waiting.superseding(held)
        event = .superseded(activity: key, dropped: held, by: merged)
        entry.inFlight = merged
        entry.waiting = nil
        state.outstanding -= 1
        return merged
    }

    /// The update token an activity started by push reported (its `input-push-token`). Its
    /// pushes that waited for it go now.
    public func setUpdateToken(_ token: String, for activity: Int) {
        setUpdateToken(token, for: activity, generation: nil)
    }

    /// The update token of `generation` (nil: the newest submitted): after a renewal, the
    /// successor's, while the predecessor's stays for the renewal's end.
    private func setUpdateToken(_ token: String, for activity: Int, generation: Int?) {
        var event: DeliveryEvent?
        let held = state.withLockedValue { state -> Push? in
            if var route = state.renewals[activity] {
                let generation = generation ?? route.newest
                if generation > route.tokenGeneration, let old = state.updateTokens[activity] {
                    route.predecessor = (route.tokenGeneration, old)
                }
                if generation >= route.tokenGeneration {
                    route.tokenGeneration = generation
                    state.updateTokens[activity] = token
                }
                state.renewals[activity] = route
            } else {
                state.updateTokens[activity] = token
            }
            return Self.release(activity, in: &state, event: &event)
        }
        if let event { onEvent(event) }
        if let held { transmit(held) }
    }

    /// The setup problem that stopped delivery, if any.
    public var configurationError: String? { state.withLockedValue { $0.configurationError } }

    /// Why an activity stopped receiving pushes (410, bad token), if it did.
    public func stopReason(for activity: Int) -> String? {
        state.withLockedValue { $0.stopped[activity] }
    }

    /// Pushes accepted and not yet finished.
    public var outstanding: Int { state.withLockedValue { $0.outstanding } }

    /// How many activities have a push not yet finished: the delivery keeps per-activity state
    /// only for these (besides the targets, update tokens and stop reasons it was told).
    public var activitiesWithUnfinishedPushes: Int { state.withLockedValue { $0.unfinished.count } }

    /// The pushes accepted and not yet finished, in flight or waiting, by activity.
    public var pendingPushes: [Push] {
        state.withLockedValue { state in
            state.unfinished.keys.sorted().flatMap { key -> [Push] in
                guard let entry = state.unfinished[key] else { return [] }
                return [entry.inFlight] + entry.queued + (entry.waiting.map { [$0] } ?? [])
            }
        }
    }

    /// Gives up on every push not yet finished, reporting each as
    /// ``DeliveryEvent/abandoned(activity:push:reason:)``: the end of a run whose drain deadline
    /// passed. Answers that still arrive for them are ignored.
    public func abandon(reason: String) {
        var events: [DeliveryEvent] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        state.withLockedValue { state in
            state.epoch += 1
            for key in state.unfinished.keys.sorted() {
                guard let entry = state.unfinished[key] else { continue }
                events.append(.abandoned(activity: key, push: entry.inFlight, reason: reason))
                for queued in entry.queued { events.append(.abandoned(activity: key, push: queued, reason: reason)) }
                if let waiting = entry.waiting {
                    events.append(.abandoned(activity: key, push: waiting, reason: reason))
                }
            }
            state.unfinished = [:]
            state.outstanding = 0
            waiters = state.idleWaiters
            state.idleWaiters = []
        }
        events.forEach(onEvent)
        if !events.isEmpty {
            logger.debug("pushes abandoned", metadata: ["count": "\(events.count)", "reason": .string(reason)])
        }
        waiters.forEach { $0.resume() }
    }

    /// Hands a push to APNs, in order behind the activity's earlier pushes.
    ///
    /// With `flush: false` the push may wait in its connection's outbox until ``flush()``: a
    /// caller that submits a burst (every activity at the same instant) calls ``flush()`` once
    /// at its end, so the burst costs one event-loop wake-up, not one per push.
    public func submit(_ push: Push, flush: Bool = true) {
        var event: DeliveryEvent?
        // The route is read under the same lock that puts the push in flight: one lock a push.
        let route: Route? = state.withLockedValue { state in
            guard state.configurationError == nil, state.stopped[push.activity] == nil else { return nil }
            state.outstanding += 1
            if push.generation > 0, push.generation > state.renewals[push.activity]?.newest ?? 0 {
                state.renewals[push.activity, default: RenewalRoute()].newest = push.generation
            }
            guard let index = state.unfinished.index(forKey: push.activity) else {
                state.unfinished[push.activity] = Unfinished(push)
                return Route(push, attempt: 1, in: state)
            }
            if push.isRenewal {
                // Never merged: what waited goes before it, in order.
                if let waiting = state.unfinished.values[index].waiting {
                    state.unfinished.values[index].queued.append(waiting)
                    state.unfinished.values[index].waiting = nil
                }
                state.unfinished.values[index].queued.append(push)
            } else if let older = state.unfinished.values[index].waiting {
                let merged = push.superseding(older)
                event = .superseded(activity: push.activity, dropped: older, by: merged)
                state.unfinished.values[index].waiting = merged
                state.outstanding -= 1
            } else {
                state.unfinished.values[index].waiting = push
            }
            return nil
        }
        if let event { onEvent(event) }
        if let route { transmit(push, route: route, flush: flush) }
    }

    /// Sends the pushes submitted with `flush: false`.
    public func flush() {
        client.flush()
    }

    /// Returns when every accepted push has finished.
    public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLockedValue { state -> Bool in
                if state.outstanding == 0 { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    // MARK: Sending

    /// Where an in-flight push goes, as the state knew it when the push was put in flight.
    private struct Route {
        var target: PushTarget?
        var updateToken: String?
        /// The generation on the device the push is for.
        var generation: Int
        var attempt: Int

        init(_ push: Push, attempt: Int, in state: State) {
            target = state.targets[push.activity]
            updateToken = state.updateToken(for: push)
            generation = state.generation(of: push)
            self.attempt = attempt
        }
    }

    private func transmit(_ push: Push, flush: Bool = true) {
        let route = state.withLockedValue { state -> Route? in
            // Abandoned, or its activity stopped, since it was handed over: nothing to send.
            guard let entry = state.unfinished[push.activity], entry.inFlight.sequence == push.sequence else {
                return nil
            }
            return Route(push, attempt: entry.attempts, in: state)
        }
        guard let route else { return }
        transmit(push, route: route, flush: flush)
    }

    /// Builds and sends the request of `push`, in flight now, to where `route` says.
    private func transmit(_ push: Push, route known: Route, flush: Bool) {
        guard let kind = known.target ?? configuration.targetResolver?(push.activity) else {
            // No target yet: the push waits for setTarget(_:for:), unless it came meanwhile.
            let arrived = state.withLockedValue { state -> Bool in
                if state.targets[push.activity] != nil { return true }
                state.unfinished[push.activity]?.heldForToken = true
                return false
            }
            if arrived { transmit(push, flush: flush) }
            return
        }
        if endsAFailedRenewal(push) {
            finish(push.activity, sequence: push.sequence, outcome: .notRenewed(Self.keptReason))
            return
        }
        let headers = PushHeaders(push, topic: configuration.topic)
        let request: APNsRequest
        if push.event == .start {
            guard let startToken = kind.startToken else {
                finish(
                    push.activity, sequence: push.sequence,
                    outcome: push.isRenewal
                        ? .notRenewed(
                            "the activity has no push-to-start token, so it cannot renew; it carries on until the system ends it"
                        ) : .stop("a start push needs a push-to-start token"))
                return
            }
            request = .push(token: startToken, headers: headers, payload: push.payload)
        } else {
            switch kind.updates {
            case .token(let token) where known.generation == 0:
                request = .push(token: token, headers: headers, payload: push.payload)
            case .channel(let channel, let storesMessages) where known.generation == 0:
                request = .broadcast(
                    bundleID: configuration.bundleID, channel: channel, priority: push.priority,
                    expiration: storesMessages ? push.expiration : 0, payload: push.payload
                )
            case .token, .reportedToken, .channel:
                // After a renewal, updates go to the token the successor reports.
                guard let updateToken = known.updateToken else {
                    holdForToken(push, startToken: kind.startToken, flush: flush)
                    return
                }
                request = .push(token: updateToken, headers: headers, payload: push.payload)
            }
        }
        onEvent(.sent(activity: push.activity, push: push, attempt: known.attempt))
        // The answer finds its push in the table (it is the activity's push in flight): the
        // closure keeps two numbers, not a copy of the push.
        let activity = push.activity
        let sequence = push.sequence
        client.send(request, flush: flush) { result in
            self.answered(activity, sequence: sequence, result: result)
        }
    }

    /// Keeps `push` until the started activity's update token is known.
    private func holdForToken(_ push: Push, startToken: String?, flush: Bool) {
        let (arrived, generation, newest) = state.withLockedValue { state -> (Bool, Int, Int) in
            let generation = state.generation(of: push)
            let newest = state.renewals[push.activity].map { $0.effective($0.newest) } ?? 0
            if state.updateToken(for: push) != nil { return (true, generation, newest) }
            state.unfinished[push.activity]?.heldForToken = true
            return (false, generation, newest)
        }
        if arrived {
            // The token came between the look-up and now.
            transmit(push, flush: flush)
            return
        }
        if generation < newest {
            // A renewal's end for a predecessor whose token was never known: a resolver finds
            // the newest activity's token, which is not the one to end.
            finish(
                push.activity, sequence: push.sequence,
                outcome: .notRenewed(
                    "the predecessor's update token was never reported, so it is not ended; the system ends it at its limit"
                ))
            return
        }
        guard let resolver = configuration.updateTokenResolver, let startToken else { return }
        Task {
            if let token = await resolver(push.activity, startToken) {
                self.setUpdateToken(token, for: push.activity, generation: generation)
            } else {
                self.finish(
                    push.activity, sequence: push.sequence,
                    outcome: .stop(
                        "the activity started by push reported no update token (input-push-token), so its updates cannot be sent"
                    ))
            }
        }
    }

    private enum Outcome {
        /// APNs answered (`response`), or the request failed (`error`): ``AnswerPolicy`` decides.
        case answer(PushServiceAnswer, response: APNsResponse?, error: String?)
        /// The push cannot be sent at all (no token to send it to): the activity stops.
        case stop(String)
        /// A renewal's push cannot be sent (no push-to-start token for its start, no token for its
        /// end): the activity carries on where it is.
        case notRenewed(String)
    }

    /// APNs answered the push `sequence` of `activity`, or the request failed.
    private func answered(_ activity: Int, sequence: Int, result: Result<APNsResponse, any Error>) {
        switch result {
        case .success(let response):
            finish(
                activity, sequence: sequence,
                outcome: .answer(PushServiceAnswer(response), response: response, error: nil))
        case .failure(let error):
            finish(
                activity, sequence: sequence,
                outcome: .answer(PushServiceAnswer(failure: error), response: nil, error: String(describing: error)))
        }
    }

    /// Why an activity whose token APNs refused stops, in the user's words.
    static func stopReason(_ problem: TokenProblem) -> String {
        var reason = "APNs answered \(problem): the activity ended or its token is no longer valid"
        if problem.mayBelongToOtherEnvironment {
            reason +=
                "; it may be a token of the other environment (a development build's token is for sandbox, a TestFlight or App Store build's for production: --env)"
        }
        return reason
    }

    /// Ends the push `sequence` of `activity`, the one in flight, with `outcome`; sends what
    /// waited behind it, or schedules its retry.
    private func finish(_ activity: Int, sequence: Int, outcome: Outcome) {
        // At most one event per answer (two when a renewal fails): no list on the hot path.
        var event: DeliveryEvent?
        var dropped: DeliveryEvent?
        /// A successor APNs took: its update token is looked up now, so that it is known for
        /// the next renewal's end even if no push of its own comes first.
        var successor: (generation: Int, startToken: String?)?
        var next: (push: Push, route: Route)?
        var retry: (push: Push, after: Millis, epoch: Int)?
        var waiters: [CheckedContinuation<Void, Never>] = []
        let now = clock.now()
        state.withLockedValue { state in
            // The entry is taken out of the table (one look-up, one move) and put back only if
            // it stays: a push is a few hundred bytes, and every read of it through the table
            // would copy all of it.
            guard let index = state.unfinished.index(forKey: activity) else { return }
            var entry = state.unfinished.remove(at: index).value
            // An answer for a push no longer in flight (abandoned, or its activity stopped) is late news.
            guard entry.inFlight.sequence == sequence else {
                state.unfinished[activity] = entry
                return
            }
            defer {
                if state.outstanding == 0 {
                    waiters = state.idleWaiters
                    state.idleWaiters = []
                }
            }
            switch outcome {
            case .stop(let reason):
                state.stopped[activity] = reason
                state.outstanding -= 1 + entry.behind
                event = .stopped(activity: activity, reason: reason)
                return
            case .notRenewed(let reason):
                event = .notRenewed(activity: activity, push: entry.inFlight, reason: reason)
                if entry.inFlight.reason.kind == .renewalStart {
                    dropped = Self.dropRenewal(entry.inFlight, from: &entry, in: &state)
                }
            case .answer(let answer, let response, let error):
                // The seed moves on only when a back-off draws from it, as it always has.
                let roll = SeededRandom.mix(state.random)
                let action = policy.action(for: answer, attempt: entry.attempts, random: SeededRandom.unit(roll))
                var failure: String { error ?? response?.description ?? "" }
                switch action {
                case .deliver:
                    event = .delivered(
                        activity: activity, push: entry.inFlight, response: response ?? APNsResponse(status: 200),
                        attempts: entry.attempts, latency: now - entry.inFlight.time)
                case .reject:
                    event = .rejected(
                        activity: activity, push: entry.inFlight, response: response ?? APNsResponse(status: 0))
                case .retry(let delay), .renewTokenAndRetry(let delay):
                    state.random = roll
                    entry.attempts += 1
                    event = .retrying(
                        activity: activity, push: entry.inFlight, failure: failure, attempt: entry.attempts,
                        after: delay)
                    retry = (entry.inFlight, delay, state.epoch)
                    state.unfinished[activity] = entry
                    return
                case .giveUp:
                    event = .gaveUp(activity: activity, push: entry.inFlight, failure: failure)
                case .forgetToken where entry.inFlight.isRenewal:
                    // A renewal's token refused (a push-to-start token gone, a predecessor the user
                    // already removed): the activity carries on where it is.
                    event = .rejected(
                        activity: activity, push: entry.inFlight, response: response ?? APNsResponse(status: 0))
                case .forgetToken(let problem):
                    let reason = Self.stopReason(problem)
                    state.stopped[activity] = reason
                    state.outstanding -= 1 + entry.behind
                    event = .stopped(activity: activity, reason: reason)
                    return
                case .stop(let problem):
                    if state.configurationError == nil {
                        state.configurationError = problem.description
                        event = .configurationError(problem.description)
                    }
                    state.outstanding = 0
                    state.unfinished = [:]
                    return
                }
                if entry.inFlight.reason.kind == .renewalStart {
                    if action == .deliver {
                        successor = (entry.inFlight.generation, state.targets[activity]?.startToken)
                    } else {
                        dropped = Self.dropRenewal(entry.inFlight, from: &entry, in: &state)
                    }
                }
            }
            if entry.inFlight.reason.kind == .renewalEnd, var route = state.renewals[activity],
                route.predecessor?.generation == route.effective(entry.inFlight.generation)
            {
                // The predecessor has its end: its token is not needed any more.
                route.predecessor = nil
                state.renewals[activity] = route
            }
            state.outstanding -= 1
            // The push that waited goes now; with none, the activity stays out of the table until its next push.
            if entry.takeNext() {
                next = (entry.inFlight, Route(entry.inFlight, attempt: 1, in: state))
                state.unfinished[activity] = entry
            }
        }
        if let event { report(event) }
        if let dropped { report(dropped) }
        waiters.forEach { $0.resume() }
        if let next { transmit(next.push, route: next.route, flush: true) }
        if let successor, let startToken = successor.startToken ?? configuration.targetResolver?(activity)?.startToken,
            let resolver = configuration.updateTokenResolver
        {
            Task {
                if let token = await resolver(activity, startToken) {
                    self.setUpdateToken(token, for: activity, generation: successor.generation)
                }
            }
        }
        if let retry {
            let clock = self.clock
            Task {
                try? await clock.sleep(until: now + retry.after)
                self.retry(retry.push, epoch: retry.epoch)
            }
        }
    }

    /// A renewal whose start did not go: its generation is marked failed, so its pushes go to
    /// the activity the device still shows, and its end is taken out unsent. Returns the end's
    /// abandonment.
    private static func dropRenewal(
        _ start: Push, from entry: inout Unfinished, in state: inout State
    )
        -> DeliveryEvent?
    {
        state.renewals[start.activity, default: RenewalRoute()].failed.insert(start.generation)
        guard
            let index = entry.queued.firstIndex(where: {
                $0.reason.kind == .renewalEnd && $0.reason.occurrence == start.reason.occurrence
            })
        else { return nil }
        let end = entry.queued.remove(at: index)
        state.outstanding -= 1
        return .notRenewed(activity: start.activity, push: end, reason: keptReason)
    }

    /// Why a failed renewal's end is not sent.
    private static let keptReason = "the successor did not start, so the activity it would have replaced is kept"

    /// Whether `push` is the end of a renewal whose start did not go (it came after the start
    /// was answered, so it was not waiting behind it to be taken out).
    private func endsAFailedRenewal(_ push: Push) -> Bool {
        guard push.reason.kind == .renewalEnd else { return false }
        return state.withLockedValue { state in
            state.renewals[push.activity]?.failed.contains(push.reason.occurrence) ?? false
        }
    }

    /// Tells the caller of `event` and logs it. One at a time: a list of the one or two events
    /// of an answer (and the list `compactMap` makes of it) would cost two allocations and two
    /// copies of each event, a push and an answer in each, on every answer.
    private func report(_ event: DeliveryEvent) {
        onEvent(event)
        log(event)
    }

    /// Logs what went wrong with a push; nothing for one delivered.
    private func log(_ event: DeliveryEvent) {
        switch event {
        case .sent, .delivered, .superseded, .abandoned, .notRenewed:
            return
        case .retrying(let activity, let push, let failure, let attempt, let after):
            logger.debug(
                "push retrying",
                metadata: [
                    "activity": "\(activity)", "sequence": "\(push.sequence)", "attempt": "\(attempt)",
                    "reason": .string(failure), "delay-ms": "\(after)",
                ])
        case .rejected(let activity, let push, let response):
            logger.debug(
                "push rejected by APNs",
                metadata: [
                    "activity": "\(activity)", "sequence": "\(push.sequence)", "answer": .string(response.description),
                ])
        case .stopped(let activity, let reason):
            logger.debug("activity stopped", metadata: ["activity": "\(activity)", "reason": .string(reason)])
        case .gaveUp(let activity, let push, let failure):
            logger.warning(
                "push given up: retries ran out",
                metadata: ["activity": "\(activity)", "sequence": "\(push.sequence)", "reason": .string(failure)])
        case .configurationError(let advice):
            logger.warning("delivery stopped: \(advice)")
        }
    }

    /// The retry of `push` falls due: send it, or the newer push that waited meanwhile.
    private func retry(_ push: Push, epoch: Int) {
        var event: DeliveryEvent?
        let send: Push? = state.withLockedValue { state in
            guard state.configurationError == nil, state.epoch == epoch, state.stopped[push.activity] == nil,
                var entry = state.unfinished[push.activity], entry.inFlight.sequence == push.sequence
            else { return nil }
            guard let waiting = entry.waiting, push.event != .start, !push.isRenewal, entry.queued.isEmpty else {
                return push
            }
            // Never resend stale content: the newer state goes, keeping what mattered in the old.
            let merged = waiting.superseding(push)
            event = .superseded(activity: push.activity, dropped: push, by: merged)
            entry.inFlight = merged
            entry.waiting = nil
            state.unfinished[push.activity] = entry
            state.outstanding -= 1
            return merged
        }
        if let event { onEvent(event) }
        if let send { transmit(send) }
    }
}

extension Push {
    /// This (newer) push in place of `older`: its state and timestamp, the higher priority of
    /// the two, and the older one's alert when it has none of its own.
    func superseding(_ older: Push) -> Push {
        var merged = self
        if older.priority == .high { merged.priority = .high }
        merged.reason.merged += older.reason.merged
        guard let olderAlert = Self.alertBytes(in: older.payload), Self.alertBytes(in: payload) == nil,
            payload.count >= 2
        else { return merged }
        // The payload ends with the closing braces of aps and of the object: put the alert before them.
        var bytes = Array(payload.dropLast(2))
        bytes.append(contentsOf: Array(#","alert":"#.utf8))
        bytes.append(contentsOf: olderAlert)
        bytes.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "}")])
        merged.payload = bytes
        return merged
    }

    /// The `aps.alert` object of a payload, encoded, or nil.
    static func alertBytes(in payload: [UInt8]) -> [UInt8]? {
        guard case .object(let top)? = try? JSONParser.parse(payload), case .object(let aps)? = top["aps"],
            let alert = aps["alert"]
        else { return nil }
        var writer = JSONWriter(capacity: 256)
        writer.value(alert)
        return writer.bytes
    }
}
