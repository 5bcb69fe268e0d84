import Foundation
import Liveline
import LivelineAPNs
import Logging

/// Sends the outbox to APNs and records each answer durably, as `AnswerPolicy` decides.
///
/// Per push, by what APNs (or the transport) answered (docs/answers.md):
/// - **Delivered**: removed from the outbox; the answer becomes the activity's last push.
/// - **Retry** (429, 5xx, a transport failure, an expired provider token): tried again after
///   the `Retry-After` a proxy gave, else an exponential back-off with full jitter
///   (`RetryPolicy`); after the last attempt the push goes to the dead letters.
/// - **Forget the token** (410, `BadDeviceToken`, `DeviceTokenNotForTopic`): the push goes to
///   the dead letters at once and the token is forgotten, so nothing more is sent to it until
///   the app registers a new one (the activity's later pushes wait for it). After
///   `BadDeviceToken` the activity's error says the token may be of the other environment.
/// - **Reject** (another 4xx): this push can never succeed: dead letters at once.
/// - **Stop** (a configuration error: credentials, topic, capability, a server certificate
///   that is not trusted): sending to the push's app and environment halts (``APNsHalts``);
///   its pushes wait, their attempts not counted, until a probe succeeds.
///
/// A key registered with an `fcm-token` (an Android phone) is sent each push's FCM message
/// through FCM instead, by the same policy (`OutboxSender+Android`).
///
/// Each push goes through the client of its activity's environment (``APNsClients``). The store
/// hands out one push per activity at a time, the oldest, so an activity's pushes reach APNs in
/// the order they were decided even across retries, halts and instances.
///
/// **Stopping.** ``stop(cutoff:)`` ends ``run()`` after the pass in flight: its pushes are
/// answered and recorded, except those APNs has not answered by the cutoff, which are given
/// back (with every other claim of this instance) so that the next instance sends them at once
/// instead of after their lease.
public final class OutboxSender: Sendable {
    /// How the sender claims pushes: its instance name, leases, batch size, retries and polling.
    public struct Configuration: Sendable {
        /// This instance's name in claims; unique per running bridge.
        public var instance: String
        /// How long a claim holds a push; a dead instance's claims are taken over after it.
        public var lease: Duration
        /// Pushes claimed per pass (and so in flight at once).
        public var batch: Int
        /// The back-off between attempts after a retryable answer, and how many to make.
        public var retry: RetryPolicy
        /// How often to look for pushes nobody rang about (due retries, other instances' pushes).
        public var pollInterval: Duration

        /// A configuration for `instance`; the defaults suit one bridge on one store.
        public init(
            instance: String, lease: Duration = .seconds(60), batch: Int = 256, retry: RetryPolicy = RetryPolicy(),
            pollInterval: Duration = .milliseconds(100)
        ) {
            self.instance = instance
            self.lease = lease
            self.batch = max(1, batch)
            self.retry = retry
            self.pollInterval = pollInterval
        }
    }

    /// What one pass did.
    public struct PassReport: Sendable, Hashable {
        /// Pushes APNs accepted.
        public var sent = 0
        /// Pushes scheduled to be tried again.
        public var retried = 0
        /// Pushes moved to the dead letters.
        public var deadLettered = 0
        /// Pushes that wait while their app and environment is halted.
        public var held = 0
        /// Pushes the pass claimed from the outbox.
        public var claimed = 0
    }

    /// What the sender was made with.
    public let configuration: Configuration
    /// Rung when the dispatcher queued pushes.
    public var wakeSignal: WakeSignal { core.wakeSignal }
    let core: SenderCore
    private let store: any OutboxStore
    let observer: any DispatchObserver

    /// A sender of `store`'s outbox through `clients`.
    ///
    /// - Parameters:
    ///   - store: where the pushes wait and the answers are recorded.
    ///   - clients: a client per environment; each push goes to its activity's.
    ///   - halts: where a configuration error halts an app and environment, shared with the
    ///     other senders; nil: halts of its own.
    ///   - configuration: the instance name, leases, batch size, retries and polling.
    ///   - observer: told of each answer, for metrics.
    ///   - logger: where failures and dead letters are logged.
    public init(
        store: any OutboxStore, clients: APNsClients, halts: APNsHalts? = nil, configuration: Configuration,
        observer: any DispatchObserver = SilentDispatchObserver(),
        logger: Logger = Logger(label: "liveline.bridge.outbox")
    ) {
        self.store = store
        self.configuration = configuration
        self.observer = observer
        core = SenderCore(
            executor: store.taskExecutor, clients: clients, halts: halts, retry: configuration.retry,
            pollInterval: configuration.pollInterval, logger: logger, failure: "sending the outbox failed; retrying")
    }

    /// Sends until ``stop(cutoff:)`` (then gives back this instance's claims) or until the task
    /// is cancelled, waking on ``wakeSignal`` or every poll interval.
    public func run() async { await core.run(self) }

    /// Ends ``run()`` after the pass in flight; answers that have not come by `cutoff` (nil:
    /// none is waited for) are given up, and their pushes given back.
    public func stop(cutoff at: Millis?) { core.stop(cutoff: at) }

    /// One pass: claims the pushes due at `now`, sends them concurrently through the halts,
    /// writes each answer. Retry times are computed from `now`, so a test in virtual time
    /// controls the back-off.
    @discardableResult
    public func send(now: Millis) async throws -> PassReport {
        let claimed = try await store.claimDuePushes(
            limit: configuration.batch, instance: configuration.instance, lease: configuration.lease, now: now
        )
        var report = PassReport()
        report.claimed = claimed.count
        guard !claimed.isEmpty else { return report }
        var decisions: [Decision] = []
        var sending: [ClaimedPush] = []
        var outgoing: [APNsHalts.Outgoing] = []
        var androids: [ClaimedPush] = []
        for push in claimed {
            if push.target.fcmToken != nil {
                androids.append(push)
                continue
            }
            guard let request = request(for: push) else {
                // The target vanished between the claim and now: give the claim back for later
                // (the attempt is counted, but never sends it to the dead letters).
                decisions.append(
                    Decision(
                        outcome: .failed(
                            push.id, answer: nil, error: "no token to send to", retryAt: now, maxAttempts: .max),
                        error: nil, retryReason: "no token"))
                continue
            }
            sending.append(push)
            outgoing.append(APNsHalts.Outgoing(scope: scope(of: push), request: request))
        }
        // Send concurrently; write every answer of the pass in one transaction. A push left
        // unanswered at a stop's cutoff has no decision: its claim is given back after the pass.
        async let android = androidDecisions(androids, now: now)
        let passages = await core.send(outgoing, now: now)
        for (index, passage) in passages.enumerated() {
            if let decision = decide(sending[index], scope: outgoing[index].scope, passage: passage, now: now) {
                decisions.append(decision)
            }
        }
        decisions += (await android).compactMap { $0 }
        let results = try await store.writePushOutcomes(decisions.map(\.outcome))
        for (decision, result) in zip(decisions, results) {
            switch result {
            case nil:
                report.sent += 1
            case .deadLettered?:
                report.deadLettered += 1
                observer.deadLettered()
                core.logger.warning("a push went to the dead letters", metadata: ["error": "\(decision.error ?? "")"])
            case .held?:
                report.held += 1
            case .retryScheduled?, .notFound?:
                report.retried += 1
                observer.retried(reason: decision.retryReason)
            }
        }
        return report
    }

    /// What to write for one push, and what to report about it.
    struct Decision: Sendable {
        var outcome: PushOutcome
        var error: String?
        var retryReason: String
    }

    /// The app and environment a push belongs to, for the halts: a broadcast when it goes to
    /// the channel (``request(for:)``).
    private func scope(of claimed: ClaimedPush) -> APNsScope {
        APNsScope(
            environment: core.clients.resolve(claimed.target.environment), topic: claimed.push.headers.topic,
            broadcast: claimed.push.kind != .start && claimed.target.updateToken == nil)
    }

    /// What one push's passage means, by `AnswerPolicy`; writes nothing. Nil: a stop's cutoff
    /// came before the answer.
    private func decide(
        _ claimed: ClaimedPush, scope: APNsScope, passage: APNsHalts.Passage, now: Millis
    ) -> Decision? {
        let answeredAt = BridgeClock.now()
        switch passage {
        case .unanswered:
            return nil
        case .held(let until, let problem, let response):
            if let response {
                observer.pushAnswered(platform: .ios, status: response.status, reason: response.reason?.rawValue)
            }
            let error = SenderCore.heldError(scope, problem: problem) + "; the push waits"
            return Decision(
                outcome: .held(
                    claimed.id, answer: response.map { Self.answer($0, at: answeredAt) }, error: error, until: until),
                error: error, retryReason: "halted")
        case .answered(let result, let answer):
            let response = try? result.get()
            // `transport` only when nothing answered: an accepted push has no reason.
            observer.pushAnswered(
                platform: .ios, status: response?.status ?? 0,
                reason: response.map { $0.reason?.rawValue } ?? "transport")
            let stored = response.map { Self.answer($0, at: answeredAt) }
            let described: String
            switch result {
            case .success(let response):
                described =
                    "APNs answered \(response.status)\(response.reason.map { " \($0.rawValue)" } ?? "") from \(core.clients.client(for: scope.environment)?.configuration.endpoint.description ?? scope.environment.rawValue)"
            case .failure(let error):
                described = "\(error)"
            }
            let action = core.action(for: answer, attempt: claimed.attempts + 1)
            switch action {
            case .deliver:
                if let receivedAt = claimed.push.receivedAt {
                    observer.receiptToAnswer(seconds: max(0, BridgeClock.seconds(from: receivedAt, to: answeredAt)))
                }
                return Decision(
                    outcome: .sent(claimed.id, answer: stored ?? PushAnswer(at: answeredAt, status: 200)), error: nil,
                    retryReason: "")
            case .retry(let after), .renewTokenAndRetry(let after):
                return Decision(
                    outcome: .failed(
                        claimed.id, answer: stored, error: described, retryAt: now + after,
                        maxAttempts: configuration.retry.maxAttempts),
                    error: described, retryReason: answer.reason ?? "transport")
            case .giveUp:
                let error = "\(described): gave up after \(claimed.attempts + 1) attempts"
                return Decision(
                    outcome: .undeliverable(
                        claimed.id, answer: stored, error: error, forgetToken: false, now: answeredAt),
                    error: error, retryReason: "")
            case .forgetToken(let problem):
                var error = "\(described): the token is no longer valid; register a new one"
                if problem.mayBelongToOtherEnvironment {
                    error += "; " + EnvironmentHint.text(registered: scope.environment)
                    core.logger.warning(
                        "APNs refused a token as BadDeviceToken",
                        metadata: [
                            "activity": "\(claimed.push.activityKey)", "environment": "\(scope.environment.rawValue)",
                            "hint": "\(EnvironmentHint.text(registered: scope.environment))",
                        ])
                }
                return Decision(
                    outcome: .undeliverable(
                        claimed.id, answer: stored, error: error, forgetToken: true, now: answeredAt),
                    error: error, retryReason: "")
            case .reject:
                return Decision(
                    outcome: .undeliverable(
                        claimed.id, answer: stored, error: described, forgetToken: false, now: answeredAt),
                    error: described, retryReason: "")
            case .stop(let problem):
                // Expired again right after a renewal: the clock, a setup problem like any other.
                let until = core.halt(scope, problem: problem, now: now)
                let error = "sending to \(scope) is halted: \(problem); the push waits"
                return Decision(
                    outcome: .held(claimed.id, answer: stored, error: error, until: until), error: error,
                    retryReason: "halted")
            }
        }
    }

    /// What is recorded of an APNs answer.
    private static func answer(_ response: APNsResponse, at: Millis) -> PushAnswer {
        PushAnswer(at: at, status: response.status, reason: response.reason?.rawValue, apnsID: response.apnsID)
    }

    /// The APNs request for a claimed push and its activity's current target.
    func request(for claimed: ClaimedPush) -> APNsRequest? {
        let push = claimed.push
        if push.kind == .start {
            guard let token = claimed.target.pushToStartToken else { return nil }
            return .push(token: token, headers: push.headers, payload: push.payload)
        }
        if let token = claimed.target.updateToken {
            return .push(token: token, headers: push.headers, payload: push.payload)
        }
        if let channel = claimed.target.channelID, let topic = push.headers.topic {
            return .broadcast(
                bundleID: LiveActivityTopic.bundleID(ofTopic: topic), channel: channel, priority: push.headers.priority,
                expiration: push.headers.expiration, payload: push.payload)
        }
        return nil
    }
}

extension OutboxSender: SenderPass {
    func pass(now: Millis) async throws -> Bool {
        try await send(now: now).claimed >= configuration.batch
    }

    func releaseClaims() async throws -> Logger.Metadata {
        let released = try await store.releaseClaims(instance: configuration.instance)
        guard released.pushes + released.activities > 0 else { return [:] }
        return ["pushes": "\(released.pushes)", "activities": "\(released.activities)"]
    }
}
