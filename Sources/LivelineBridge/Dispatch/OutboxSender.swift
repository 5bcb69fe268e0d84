import Foundation
import Liveline
import LivelineAPNs
import Logging

/// Sends the outbox to APNs and records each answer durably, retrying by APNs' reason.
///
/// Per push, by what APNs (or the transport) answered (docs/apns.md §4):
/// - **2xx**: removed from the outbox; the answer becomes the activity's last push.
/// - **429, 500, 503, a transport failure, an expired provider token**: tried again after an
///   exponential back-off with full jitter (``RetryPolicy``); after the last attempt the push
///   goes to the dead letters.
/// - **410, `BadDeviceToken`, `DeviceTokenNotForTopic`**: the token is dead. The push goes to
///   the dead letters at once and the token is forgotten, so nothing more is sent to it until
///   the app registers a new one (the activity's later pushes wait for it).
/// - **Any other 4xx**: this push can never succeed: dead letters at once.
/// - **A configuration error** (topic, key, environment, or a server certificate that is not
///   trusted): retried like an outage, so that fixing the setup and restarting loses
///   nothing; the error is on the activity and logged at error level.
///
/// The store hands out one push per activity at a time, the oldest, so an activity's pushes
/// reach APNs in the order they were decided even across retries and instances.
///
/// **Stopping.** ``stop(cutoff:)`` ends ``run()`` after the pass in flight: its pushes are
/// answered and recorded, except those APNs has not answered by the cutoff, which are given
/// back (with every other claim of this instance) so that the next instance sends them at once
/// instead of after their lease.
public final class OutboxSender: Sendable {
    public struct Configuration: Sendable {
        public var instance: String
        /// How long a claim holds a push; a dead instance's claims are taken over after it.
        public var lease: Duration
        /// Pushes claimed per pass (and so in flight at once).
        public var batch: Int
        public var retry: RetryPolicy
        public var pollInterval: Duration

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
        public var sent = 0
        public var retried = 0
        public var deadLettered = 0
        public var claimed = 0
    }

    public let configuration: Configuration
    /// Rung when the dispatcher queued pushes.
    public var wakeSignal: WakeSignal { loop.wakeSignal }
    private let loop: WorkerLoop
    private let store: any OutboxStore
    private let client: APNsClient
    private let observer: any DispatchObserver
    private let logger: Logger
    private let host: String
    private let cutoff = SendCutoff()

    public init(
        store: any OutboxStore, client: APNsClient, configuration: Configuration,
        observer: any DispatchObserver = SilentDispatchObserver(),
        logger: Logger = Logger(label: "liveline.bridge.outbox")
    ) {
        self.store = store
        self.client = client
        self.configuration = configuration
        self.observer = observer
        self.logger = logger
        self.host = client.configuration.endpoint.description
        loop = WorkerLoop(executor: store.taskExecutor, logger: logger, failure: "sending the outbox failed; retrying")
    }

    /// Sends until ``stop(cutoff:)`` (then gives back this instance's claims) or until the task
    /// is cancelled, waking on ``wakeSignal`` or every poll interval.
    public func run() async {
        // A cancellation stops a pass mid-query: the claimed pushes' leases expire and the next
        // start sends them, so it is no failure to report.
        await loop.run(
            pass: { try await send(now: BridgeClock.now()).claimed >= configuration.batch },
            wait: { configuration.pollInterval }, stopped: { await releaseClaims() })
    }

    /// Ends ``run()`` after the pass in flight; answers that have not come by `cutoff` (nil:
    /// none is waited for) are given up, and their pushes given back.
    public func stop(cutoff at: Millis?) {
        loop.stop()
        cutoff.fire(at: at)
    }

    /// Gives back the pushes and activities this instance still claims (unanswered at the cutoff,
    /// or claimed by a pass that failed), so the next instance takes them at once.
    private func releaseClaims() async {
        do {
            let released = try await store.releaseClaims(instance: configuration.instance)
            if released.pushes + released.activities > 0 {
                logger.notice(
                    "gave back unanswered work for the next instance",
                    metadata: [
                        "pushes": "\(released.pushes)", "activities": "\(released.activities)",
                    ])
            }
        } catch {
            logger.error(
                "could not give back this instance's claims; they return when their lease ends",
                metadata: ["error": "\(error)"])
        }
    }

    /// One pass: claims the pushes due at `now`, sends them concurrently, writes each answer.
    /// Retry times are computed from `now`, so a test in virtual time controls the back-off.
    @discardableResult
    public func send(now: Millis) async throws -> PassReport {
        let claimed = try await store.claimDuePushes(
            limit: configuration.batch, instance: configuration.instance, lease: configuration.lease, now: now
        )
        var report = PassReport()
        report.claimed = claimed.count
        guard !claimed.isEmpty else { return report }
        // Send concurrently; write every answer of the pass in one transaction. A push left
        // unanswered at a stop's cutoff has no decision: its claim is given back after the pass.
        let decisions = await withTaskGroup(of: Decision?.self) { group in
            for push in claimed {
                group.addTask { await self.deliver(push, now: now) }
            }
            var decisions: [Decision] = []
            for await decision in group {
                if let decision { decisions.append(decision) }
            }
            return decisions
        }
        let results = try await store.writePushOutcomes(decisions.map(\.outcome))
        for (decision, result) in zip(decisions, results) {
            switch result {
            case nil:
                report.sent += 1
            case .deadLettered?:
                report.deadLettered += 1
                observer.deadLettered()
                logger.warning("a push went to the dead letters", metadata: ["error": "\(decision.error ?? "")"])
            case .retryScheduled?, .notFound?:
                report.retried += 1
                observer.retried(reason: decision.retryReason)
            }
        }
        return report
    }

    /// What to write for one push, and what to report about it.
    private struct Decision: Sendable {
        var outcome: PushOutcome
        var error: String?
        var retryReason: String
    }

    /// Sends one push and decides what its answer means; writes nothing. Nil: a stop's cutoff
    /// came before the answer.
    private func deliver(_ claimed: ClaimedPush, now: Millis) async -> Decision? {
        guard let request = request(for: claimed) else {
            // The target vanished between the claim and now: give the claim back for later
            // (the attempt is counted, but never sends it to the dead letters).
            return Decision(
                outcome: .failed(
                    claimed.id, answer: nil, error: "no token to send to", retryAt: now, maxAttempts: .max),
                error: nil, retryReason: "no token"
            )
        }
        guard let result = await cutoff.send(request, with: client) else { return nil }
        let answeredAt = BridgeClock.now()
        switch result {
        case .success(let response):
            let answer = PushAnswer(
                at: answeredAt, status: response.status, reason: response.reason?.rawValue, apnsID: response.apnsID)
            observer.pushAnswered(status: response.status, reason: response.reason?.rawValue)
            let described =
                "APNs answered \(response.status)\(response.reason.map { " \($0.rawValue)" } ?? "") from \(host)"
            switch APNsDisposition(response) {
            case .delivered:
                if let receivedAt = claimed.push.receivedAt {
                    observer.receiptToAnswer(seconds: max(0, BridgeClock.seconds(from: receivedAt, to: answeredAt)))
                }
                return Decision(outcome: .sent(claimed.id, answer: answer), error: nil, retryReason: "")
            case .retry, .renewTokenAndRetry:
                return retry(claimed, answer: answer, error: described, now: now)
            case .configurationError(let advice):
                logger.error("APNs refused the setup", metadata: ["advice": "\(advice)"])
                return retry(claimed, answer: answer, error: "\(described): \(advice)", now: now)
            case .tokenGone:
                let error = "\(described): the token is no longer valid; register a new one"
                return Decision(
                    outcome: .undeliverable(
                        claimed.id, answer: answer, error: error, forgetToken: true, now: answeredAt),
                    error: error, retryReason: ""
                )
            case .rejected:
                return Decision(
                    outcome: .undeliverable(
                        claimed.id, answer: answer, error: described, forgetToken: false, now: answeredAt),
                    error: described, retryReason: ""
                )
            }
        case .failure(let error):
            observer.pushAnswered(status: 0, reason: "transport")
            if let transport = error as? APNsTransportError, transport.isSetupError {
                // An untrusted certificate or a server without HTTP/2 will not heal by itself:
                // say so loudly, as for a refused key or topic, and keep the push for after the fix.
                logger.error("APNs cannot be reached as configured", metadata: ["error": "\(transport)"])
            }
            return retry(claimed, answer: nil, error: "\(error)", now: now)
        }
    }

    private func retry(_ claimed: ClaimedPush, answer: PushAnswer?, error: String, now: Millis) -> Decision {
        let delay = configuration.retry.delay(beforeAttempt: claimed.attempts + 2, random: Double.random(in: 0..<1))
        return Decision(
            outcome: .failed(
                claimed.id, answer: answer, error: error, retryAt: now + delay,
                maxAttempts: configuration.retry.maxAttempts
            ),
            error: error, retryReason: answer?.reason ?? (answer.map { "status \($0.status)" } ?? "transport")
        )
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
