import Foundation
import Liveline
import LivelineAPNs
import Logging

/// Sends renewals (`Renewal`): a key's story carried past the system's 8 hours, on the key's
/// own activity and on each follower's.
///
/// A renewal reaches every device that has a push-to-start token and an update token (the key
/// itself first, then its followers in ranges by id; a follower on the key's channel, or with
/// one token only, keeps its activity until the system ends it). For each, in this order:
///
/// 1. **The successor's start** goes to the push-to-start token, with the state of the renewal.
/// 2. **Once APNs has taken it**, the device's update token is retired in the store (its pushes
///    now wait for the token the app reports for the successor, through the registry or
///    followers API; a token the app has already reported stays), and the predecessor is owed
///    its end.
/// 3. **The predecessor's end** goes to the retired token, dismissed at once. Only then is the
///    device renewed: ending first would leave it blank while the start is on its way, or for
///    good if the start failed.
///
/// By `AnswerPolicy`: a start refused (another 4xx, a push-to-start token gone, retries spent)
/// leaves the device on its activity, untouched; 429, 5xx and transport failures back off
/// (``Configuration/retry``); a halted app waits, attempts not counted. An end whose token is
/// gone has nothing left to end.
///
/// Every answer goes to the delivery history with the renewal's state, in one transaction: the
/// key's own device an entry per attempt, the followers one entry per push with counts
/// (`SQLStore+RenewalHistory`).
///
/// **Never a second start.** A start whose answer is unknown (its instance died, or a stop's
/// cutoff came first) is not sent again: a repeated start would be a second activity on the
/// device. It is counted in doubt: the device either shows the successor (its app reports its
/// token, and the device moves to it; the predecessor stays until the system ends it) or keeps
/// its activity. An end is sent again freely: a device drops a repeated one.
///
/// While a key's renewal runs, its pushes decided after the renewal wait (``RenewalStore``).
public final class RenewalSender: Sendable {
    /// How the sender claims renewals: its instance name, leases, page sizes, retries and polling.
    public struct Configuration: Sendable {
        /// This instance's name in claims; unique per running bridge.
        public var instance: String
        /// How long a claimed range or step holds; a dead instance's is taken over after it.
        public var lease: Duration
        /// Devices per range.
        public var page: Int
        /// Steps (retries, ends owed) per pass.
        public var steps: Int
        /// The back-off after a retryable answer, and how many attempts each push gets.
        public var retry: RetryPolicy
        /// How often to look for work nobody rang about (due retries, other instances' renewals).
        public var pollInterval: Duration

        /// A configuration for `instance`; the defaults suit one bridge on one store.
        public init(
            instance: String, lease: Duration = .seconds(60), page: Int = 1000, steps: Int = 1000,
            retry: RetryPolicy = RetryPolicy(), pollInterval: Duration = .milliseconds(100)
        ) {
            self.instance = instance
            self.lease = lease
            self.page = max(1, page)
            self.steps = max(1, steps)
            self.retry = retry
            self.pollInterval = pollInterval
        }
    }

    /// What one pass did.
    public struct PassReport: Sendable, Hashable {
        /// Ranges sent and recorded (resumed ones included).
        public var ranges = 0
        /// Successors APNs took.
        public var started = 0
        /// Predecessors' ends APNs took (or whose token was gone).
        public var ended = 0
        /// Starts that cannot reach their device.
        public var refused = 0
        /// Starts whose answer is unknown, not sent again.
        public var inDoubt = 0
        /// Pushes to try again later.
        public var retried = 0
        /// Pushes that wait while their app and environment is halted.
        public var held = 0
        /// Steps (retries, ends owed) the pass took.
        public var steps = 0

        /// Whether the pass did anything, so the loop goes again at once.
        public var didWork: Bool { ranges > 0 || steps > 0 }
    }

    /// What the sender was made with.
    public let configuration: Configuration
    /// Rung when the dispatcher decided a renewal.
    public var wakeSignal: WakeSignal { core.wakeSignal }
    private let core: SenderCore
    private let store: any RenewalStore
    private let observer: any RenewalObserver

    /// A sender of `store`'s renewals through `clients`.
    ///
    /// - Parameters:
    ///   - store: where renewals and their devices are, and where answers are recorded.
    ///   - clients: a client per environment; each device's push goes to its environment's.
    ///   - halts: where a configuration error halts an app and environment, shared with the
    ///     other senders; nil: halts of its own.
    ///   - configuration: the instance name, leases, page sizes, retries and polling.
    ///   - observer: told what became of each device, for metrics.
    ///   - logger: where refusals and doubts are logged.
    public init(
        store: any RenewalStore, clients: APNsClients, halts: APNsHalts? = nil, configuration: Configuration,
        observer: any RenewalObserver = SilentRenewalObserver(),
        logger: Logger = Logger(label: "liveline.bridge.renewal")
    ) {
        self.store = store
        self.configuration = configuration
        self.observer = observer
        core = SenderCore(
            executor: store.taskExecutor, clients: clients, halts: halts, retry: configuration.retry,
            pollInterval: configuration.pollInterval, logger: logger, failure: "sending renewals failed; retrying")
    }

    /// Sends until ``stop(cutoff:)`` or cancellation, waking on ``wakeSignal`` or every poll.
    public func run() async { await core.run(self) }

    /// Ends ``run()`` after the pass in flight; answers not come by `cutoff` are given up (a
    /// start's is then in doubt, an end is sent again by the next instance).
    public func stop(cutoff at: Millis?) { core.stop(cutoff: at) }

    /// One pass at `now`: a range of a renewal's devices, then the due steps (the ends that
    /// range owes among them, so a device is renewed within one pass).
    @discardableResult
    public func send(now: Millis) async throws -> PassReport {
        var report = PassReport()
        if let range = try await store.claimRenewalRange(
            limit: configuration.page, instance: configuration.instance, lease: configuration.lease, now: now)
        {
            report.ranges = 1
            let answers: [RenewalAnswer]
            if range.resumed {
                answers = range.targets.map { _ in RenewalAnswer(.inDoubt) }
                if !range.targets.isEmpty {
                    core.logger.warning(
                        "a renewal's range was claimed by an instance that stopped before recording it; its starts are in doubt and not sent again",
                        metadata: [
                            "activity": "\(range.pushes.activityKey)", "devices": "\(range.targets.count)",
                        ])
                }
            } else {
                answers = await deliver(
                    range.targets.map { (push: range.pushes.start, kind: .start, target: $0, attempts: 0) }, now: now)
            }
            try await store.writeRenewalRange(range, answers: answers, instance: configuration.instance, now: now)
            count(answers.map(\.outcome), into: &report)
        }
        let steps = try await store.claimRenewalSteps(
            limit: configuration.steps, instance: configuration.instance, lease: configuration.lease, now: now)
        report.steps = steps.count
        if !steps.isEmpty {
            let sending = steps.filter { !$0.inDoubt }
            var delivered = await deliver(
                sending.map { (push: $0.push, kind: $0.kind, target: $0.target, attempts: $0.attempts) }, now: now
            )[...]
            let answers = steps.map { step in
                step.inDoubt ? RenewalAnswer(.inDoubt) : delivered.popFirst() ?? RenewalAnswer(.inDoubt)
            }
            count(answers.map(\.outcome), into: &report)
            try await store.writeRenewalSteps(
                Array(zip(steps, answers)), instance: configuration.instance, now: now)
        }
        return report
    }

    /// Counts outcomes in `report` and the observer.
    private func count(_ outcomes: [RenewalOutcome], into report: inout PassReport) {
        for outcome in outcomes {
            switch outcome {
            case .started:
                report.started += 1
                observer.renewal(.started)
            case .ended:
                report.ended += 1
                observer.renewal(.ended)
            case .retry:
                report.retried += 1
            case .held:
                report.held += 1
            case .refused:
                report.refused += 1
                observer.renewal(.refused)
            case .endFailed:
                observer.renewal(.endFailed)
            case .inDoubt:
                report.inDoubt += 1
                observer.renewal(.inDoubt)
            }
        }
    }

    /// Sends each push at once through the halts; what came of each, in order.
    private func deliver(
        _ sends: [(push: OutboxPush, kind: RenewalStep.Kind, target: RenewalTarget, attempts: Int)], now: Millis
    ) async -> [RenewalAnswer] {
        guard !sends.isEmpty else { return [] }
        let outgoing = sends.map { send in
            APNsHalts.Outgoing(
                scope: APNsScope(
                    environment: core.clients.resolve(send.target.environment), topic: send.push.headers.topic),
                request: .push(
                    token: send.kind == .start ? send.target.startToken : send.target.updateToken,
                    headers: send.push.headers, payload: send.push.payload))
        }
        let passages = await core.send(outgoing, now: now)
        return zip(sends, zip(outgoing, passages)).map { send, sent in
            let answer = self.answer(
                to: sent.1, kind: send.kind, scope: sent.0.scope, attempts: send.attempts, now: now)
            if case .refused(let reason, _) = answer.outcome {
                core.logger.notice(
                    "a device's successor could not be started; it keeps its activity until the system ends it",
                    metadata: [
                        "activity": "\(send.push.activityKey)", "device": "\(send.target.followerID)",
                        "reason": "\(reason)",
                    ])
            }
            return answer
        }
    }

    /// What one push's passage means, by `AnswerPolicy`, with APNs' answer for the history.
    private func answer(
        to passage: APNsHalts.Passage, kind: RenewalStep.Kind, scope: APNsScope, attempts: Int, now: Millis
    ) -> RenewalAnswer {
        let answeredAt = BridgeClock.now()
        func recorded(_ response: APNsResponse) -> PushAnswer {
            PushAnswer(
                at: answeredAt, status: response.status, reason: response.reason?.rawValue, apnsID: response.apnsID)
        }
        switch passage {
        case .unanswered:
            // A start may have reached APNs: never sent again. An end is, by the next instance.
            return RenewalAnswer(
                kind == .start ? .inDoubt : .retry(error: "unanswered at the stop", retryAt: now, counted: false))
        case .held(let until, let problem, let response):
            return RenewalAnswer(
                .held(error: SenderCore.heldError(scope, problem: problem), until: until),
                answer: response.map(recorded))
        case .answered(let result, let answer):
            let error: String
            let stored: PushAnswer?
            switch result {
            case .success(let response):
                error = "APNs answered \(response.status) \(answer.reason ?? "")"
                stored = recorded(response)
            case .failure(let failure):
                error = "\(failure)"
                stored = nil
            }
            switch core.action(for: answer, attempt: attempts + 1) {
            case .deliver:
                return RenewalAnswer(kind == .start ? .started : .ended, answer: stored)
            case .retry(let after), .renewTokenAndRetry(let after):
                return RenewalAnswer(.retry(error: error, retryAt: now + after, counted: true), answer: stored)
            case .forgetToken(let problem):
                // A push-to-start token gone: no successor. An update token gone: the
                // predecessor is no more, nothing to end.
                return RenewalAnswer(
                    kind == .start ? .refused(reason: "\(error): \(problem)", forgetStartToken: true) : .ended,
                    answer: stored)
            case .reject(let reason), .giveUp(let reason):
                return RenewalAnswer(
                    kind == .start ? .refused(reason: reason, forgetStartToken: false) : .endFailed(reason: reason),
                    answer: stored)
            case .stop(let problem):
                let until = core.halt(scope, problem: problem, now: now)
                return RenewalAnswer(
                    .held(error: "sending to \(scope) is halted: \(problem)", until: until), answer: stored)
            }
        }
    }
}

extension RenewalSender: SenderPass {
    func pass(now: Millis) async throws -> Bool { try await send(now: now).didWork }

    func releaseClaims() async throws -> Logger.Metadata {
        let released = try await store.releaseRenewalClaims(instance: configuration.instance)
        return released > 0 ? ["renewal ends": "\(released)"] : [:]
    }
}
