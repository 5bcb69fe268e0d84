import Foundation
import Liveline
import LivelineAPNs
import Logging

/// Sends fan-outs: each push decided for a key with followers, to every token follower.
///
/// A pass claims ranges of followers (keyset pages by follower id; one of each fan-out with
/// work first, so a key with a million followers does not hold up the next key's; several
/// instances on PostgreSQL share one fan-out by claiming its ranges in turn) and keeps
/// ``Configuration/ranges`` of them in flight through `APNsClient`: when a range is wholly
/// answered it is written in one transaction and the next is claimed, while the others are
/// still being answered, until the pass has taken ``Configuration/rangesPerPass``. Then it sends the followers whose exception is due (joined late, or backing
/// off), each the newest push of its key.
///
/// Each follower's push goes through the client of its environment (``APNsClients``) and the
/// halts (``APNsHalts``); per follower, by what `AnswerPolicy` makes of APNs' answer: 2xx,
/// done; 410, `BadDeviceToken`, `DeviceTokenNotForTopic`, the token is forgotten (and the
/// follower with its last token; a `BadDeviceToken` is summed under its environment, with the
/// hint that the token may be of the other); 429, 5xx, a transport failure, that follower alone
/// backs off (`RetryPolicy`, or the `Retry-After` a proxy gave) and is then sent the newest
/// push; another 4xx, or the last retry failing, is counted in the fan-out's failure summary.
/// A configuration error halts the follower's app and environment: its followers wait (as
/// exceptions, attempts unchanged), and a fan-out whose app is halted in every environment
/// hands out no ranges until a probe succeeds. An Android follower's message goes through FCM
/// (``APNsClients/fcm``) by the same policy, each platform with its own answers
/// (`AndroidFanOut`).
public final class FanOutSender: Sendable {
    /// How the sender claims fan-outs: its instance name, leases, page sizes, retries and polling.
    public struct Configuration: Sendable {
        /// This instance's name in claims; unique per running bridge.
        public var instance: String
        /// How long a claimed range holds; a dead instance's range is sent again after it.
        public var lease: Duration
        /// Followers per range.
        public var page: Int
        /// Ranges in flight at once (all their pushes sent together).
        public var ranges: Int
        /// Ranges a pass takes before it turns to the catch-ups; at least ``ranges``.
        public var rangesPerPass: Int
        /// Catch-ups and retries per pass.
        public var catchUps: Int
        /// The back-off of a follower after a retryable answer, and how many attempts it gets.
        public var retry: RetryPolicy
        /// How often to look for work nobody rang about (due catch-ups, other instances' fan-outs).
        public var pollInterval: Duration

        /// A configuration for `instance`; `rangesPerPass` defaults to `ranges`.
        public init(
            instance: String, lease: Duration = .seconds(60), page: Int = 1000, ranges: Int = 4,
            rangesPerPass: Int? = nil,
            catchUps: Int = 512, retry: RetryPolicy = RetryPolicy(), pollInterval: Duration = .milliseconds(100)
        ) {
            self.instance = instance
            self.lease = lease
            self.page = max(1, page)
            self.ranges = max(1, ranges)
            self.rangesPerPass = max(self.ranges, rangesPerPass ?? ranges)
            self.catchUps = max(1, catchUps)
            self.retry = retry
            self.pollInterval = pollInterval
        }
    }

    /// What one pass did.
    public struct PassReport: Sendable, Hashable {
        /// Ranges sent and recorded.
        public var ranges = 0
        /// Followers APNs accepted a push for.
        public var sent = 0
        /// Followers whose push failed (to be retried, or counted in a failure summary).
        public var failed = 0
        /// Followers that wait while their app and environment is halted.
        public var held = 0
        /// Catch-ups (a follower's own retry or late start) the pass sent.
        public var catchUps = 0
        /// Fan-outs whose every range is now recorded.
        public var finished = 0
        /// Followers forgotten because their token is gone.
        public var pruned = 0

        /// Whether the pass sent anything, so the loop polls again at once.
        public var didWork: Bool { ranges > 0 || catchUps > 0 }
    }

    /// What the sender was made with.
    public let configuration: Configuration
    /// Rung when the dispatcher started fan-outs or a follower joined.
    public var wakeSignal: WakeSignal { core.wakeSignal }
    private let core: SenderCore
    private let store: any FanOutStore
    private let android: AndroidFanOut
    private let observer: any FanOutObserver

    /// A sender of `store`'s fan-outs through `clients`.
    ///
    /// - Parameters:
    ///   - store: where fan-outs and followers are, and where answers are recorded.
    ///   - clients: a client per environment; each follower's push goes to its environment's.
    ///   - halts: where a configuration error halts an app and environment, shared with the
    ///     other senders; nil: halts of its own.
    ///   - configuration: the instance name, leases, page sizes, retries and polling.
    ///   - observer: told of each range and answer, for metrics.
    ///   - logger: where failures are logged.
    public init(
        store: any FanOutStore, clients: APNsClients, halts: APNsHalts? = nil, configuration: Configuration,
        observer: any FanOutObserver = SilentFanOutObserver(),
        logger: Logger = Logger(label: "liveline.bridge.fanout")
    ) {
        self.store = store
        self.configuration = configuration
        android = AndroidFanOut(
            destination: clients.fcm, policy: AnswerPolicy(retry: configuration.retry),
            maxAttempts: configuration.retry.maxAttempts, logger: logger)
        self.observer = observer
        core = SenderCore(
            executor: store.taskExecutor, clients: clients, halts: halts, retry: configuration.retry,
            pollInterval: configuration.pollInterval, logger: logger, failure: "sending fan-outs failed; retrying")
    }

    /// Sends until ``stop(cutoff:)`` or cancellation, waking on ``wakeSignal`` or every poll.
    public func run() async { await core.run(self) }

    /// Ends ``run()`` after the pass in flight; answers not come by `cutoff` are given up, and
    /// their ranges given back, so the next instance sends them again at once (the same payload
    /// and timestamp: a device that has it drops it).
    public func stop(cutoff at: Millis?) { core.stop(cutoff: at) }

    /// One pass at `now`: up to ``Configuration/rangesPerPass`` ranges, ``Configuration/ranges``
    /// of them in flight at a time, then the due catch-ups.
    @discardableResult
    public func send(now: Millis) async throws -> PassReport {
        var report = PassReport()
        var claimedFanOuts: [Int64] = []
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: (FanOutRange, [FollowerAnswer]?).self) { group in
            var inFlight = 0
            while inFlight < configuration.ranges, report.ranges < configuration.rangesPerPass,
                let range = try await claimRange(now: now, excluding: claimedFanOuts)
            {
                claimedFanOuts.append(range.fanOutID)
                report.ranges += 1
                inFlight += 1
                group.addTask { (range, await self.deliver(range.push, to: range.targets, attempts: 0, now: now)) }
            }
            while let (range, answers) = try await group.next() {
                inFlight -= 1
                // A range not wholly answered by a stop's cutoff stays claimed: sent again later.
                if let answers {
                    // The pass's `now`, moved on by the time its answers took: a fan-out's
                    // finish (and so its lag on the dashboard) is when its last range was answered.
                    let answeredAt = now + (ContinuousClock.now - started).millis
                    try await write(range, answers: answers, now: answeredAt, into: &report)
                }
                if answers != nil, !core.isStopping, report.ranges < configuration.rangesPerPass,
                    let next = try await claimRange(now: now, excluding: claimedFanOuts)
                {
                    claimedFanOuts.append(next.fanOutID)
                    report.ranges += 1
                    inFlight += 1
                    group.addTask { (next, await self.deliver(next.push, to: next.targets, attempts: 0, now: now)) }
                }
            }
        }
        let catchUps = try await store.claimCatchUps(
            limit: configuration.catchUps, instance: configuration.instance, lease: configuration.lease, now: now
        )
        report.catchUps = catchUps.count
        if !catchUps.isEmpty {
            let answers = await deliver(
                catchUps.map { Send(push: $0.push, target: $0.target, attempts: $0.attempts) }, now: now)
            let outcomes: [(catchUp: FollowerCatchUp, outcome: FollowerOutcome)] = zip(catchUps, answers ?? []).map {
                ($0, $1.outcome)
            }
            let progress = try await store.writeCatchUps(outcomes, now: now)
            for (key, count) in Dictionary(grouping: outcomes, by: \.catchUp.activityKey).mapValues(\.count) {
                observer.fanOutPushes(activityKey: key, count: count)
            }
            observe(zip(catchUps, outcomes).map { FollowerAnswer(target: $0.target, outcome: $1.outcome) })
            report.sent += outcomes.filter { $0.outcome == .sent }.count
            report.failed += outcomes.filter(\.outcome.isFailure).count
            report.held += outcomes.filter { if case .held = $0.outcome { true } else { false } }.count
            report.pruned += progress.pruned
            if progress.pruned > 0 { observer.followersPruned(progress.pruned) }
        }
        return report
    }

    /// The next range of followers to send, preferring fan-outs this pass has not served yet.
    private func claimRange(now: Millis, excluding claimed: [Int64]) async throws -> FanOutRange? {
        let range = try await store.claimFanOutRange(
            limit: configuration.page, instance: configuration.instance, lease: configuration.lease, now: now,
            excluding: claimed, haltedTopics: core.halts.haltedTopics(in: core.clients.environments, now: now)
        )
        if let range, range.resumed { observer.fanOutResumed(duplicates: range.targets.count) }
        return range
    }

    /// Writes a wholly answered range and counts it in `report` and the observer.
    private func write(
        _ range: FanOutRange, answers: [FollowerAnswer], now: Millis, into report: inout PassReport
    ) async throws {
        let progress = try await store.writeFanOut(range, answers: answers, instance: configuration.instance, now: now)
        report.sent += answers.filter { $0.outcome == .sent }.count
        report.failed += answers.filter(\.outcome.isFailure).count
        report.held += answers.filter { if case .held = $0.outcome { true } else { false } }.count
        report.pruned += progress.pruned
        if !answers.isEmpty { observer.fanOutPushes(activityKey: range.push.activityKey, count: answers.count) }
        observe(answers)
        if progress.pruned > 0 { observer.followersPruned(progress.pruned) }
        if progress.finished {
            report.finished += 1
            if let receivedAt = progress.receivedAt {
                observer.fanOutFinished(
                    lagSeconds: max(0, BridgeClock.seconds(from: receivedAt, to: BridgeClock.now())))
            }
        }
    }

    /// Tells the observer each platform's answers: how many were sent, and why the others failed.
    private func observe(_ answers: [FollowerAnswer]) {
        for platform in Platform.allCases {
            var sent = 0
            var failures: [String] = []
            for answer in answers where answer.target.platform == platform {
                switch answer.outcome {
                case .sent: sent += 1
                case .tokenGone(let reason), .rejected(let reason), .retry(let reason, _, _, _): failures.append(reason)
                case .held: break
                }
            }
            if sent > 0 || !failures.isEmpty {
                observer.fanOutAnswered(platform: platform, sent: sent, failures: failures)
            }
        }
    }

    /// One push to send: what, to whom, after how many failed attempts.
    private struct Send {
        var push: OutboxPush
        var target: FanOutTarget
        var attempts: Int
    }

    /// Sends `push` to each target at once, an iPhone's through the halts and an Android
    /// phone's through FCM; the answers in the targets' order, or nil when a stop's cutoff came
    /// before every answer. The range's push is not copied per follower.
    private func deliver(
        _ push: OutboxPush, to targets: [FanOutTarget], attempts: Int, now: Millis
    ) async -> [FollowerAnswer]? {
        guard targets.contains(where: { $0.platform == .android }) else {
            return await deliverToPhones(
                targets.count, push: { _ in push }, target: { targets[$0] }, attempts: { _ in attempts }, now: now)
        }
        let iPhones = targets.filter { $0.platform != .android }
        async let phones = deliverToPhones(
            iPhones.count, push: { _ in push }, target: { iPhones[$0] }, attempts: { _ in attempts }, now: now)
        let outcomes = await android.deliver(
            targets.filter { $0.platform == .android }.map {
                AndroidFanOut.Send(push: push, target: $0, attempts: attempts)
            },
            cutoff: core.cutoff, now: now)
        return Self.interleave(targets, phones: await phones, androids: outcomes)
    }

    /// Sends every push at once, an iPhone's through the halts and an Android phone's through
    /// FCM; the answers in their order, or nil when a stop's cutoff came before every answer.
    private func deliver(_ sends: [Send], now: Millis) async -> [FollowerAnswer]? {
        let iPhones = sends.filter { $0.target.platform != .android }
        async let phones = deliverToPhones(
            iPhones.count, push: { iPhones[$0].push }, target: { iPhones[$0].target },
            attempts: { iPhones[$0].attempts }, now: now)
        let androids = sends.filter { $0.target.platform == .android }
        let outcomes =
            androids.isEmpty
            ? []
            : await android.deliver(
                androids.map { AndroidFanOut.Send(push: $0.push, target: $0.target, attempts: $0.attempts) },
                cutoff: core.cutoff, now: now)
        return Self.interleave(sends.map(\.target), phones: await phones, androids: outcomes)
    }

    /// Both platforms' answers back in `targets`' order: the iPhones' in theirs, the Android
    /// phones' in theirs; nil when either was cut off by a stop.
    private static func interleave(
        _ targets: [FanOutTarget], phones: [FollowerAnswer]?, androids: [FollowerOutcome?]
    ) -> [FollowerAnswer]? {
        guard let phones, !androids.contains(where: { $0 == nil }) else { return nil }
        var answers: [FollowerAnswer] = []
        answers.reserveCapacity(targets.count)
        var nextPhone = phones.makeIterator()
        var nextAndroid = androids.makeIterator()
        for target in targets {
            if target.platform == .android {
                guard case .some(.some(let outcome)) = nextAndroid.next() else { return nil }
                answers.append(FollowerAnswer(target: target, outcome: outcome))
            } else {
                guard let answer = nextPhone.next() else { return nil }
                answers.append(answer)
            }
        }
        return answers
    }

    /// Sends `count` pushes to iPhones at once through the halts (the `index`th is `push(index)`
    /// to `target(index)`, after `attempts(index)` failed ones); the answers in their order, or
    /// nil when a stop's cutoff came before every answer. Followers that share a push share its
    /// bytes: it is not copied per follower.
    private func deliverToPhones(
        _ count: Int, push: (Int) -> OutboxPush, target: (Int) -> FanOutTarget, attempts: (Int) -> Int, now: Millis
    ) async -> [FollowerAnswer]? {
        guard count > 0 else { return [] }
        // Pushes of one fan-out share its payload's bytes and headers: a push to a device token
        // keeps them as they are, and the connection writes them straight into its frames.
        var outgoing: [APNsHalts.Outgoing] = []
        outgoing.reserveCapacity(count)
        for index in 0..<count {
            let push = push(index), target = target(index)
            outgoing.append(
                APNsHalts.Outgoing(
                    scope: APNsScope(environment: core.clients.resolve(target.environment), topic: push.headers.topic),
                    request: .push(token: target.token, headers: push.headers, payload: push.payload)))
        }
        let passages = await core.send(outgoing, now: now)
        // One left unanswered at a stop's cutoff leaves the whole batch unrecorded (sent again later).
        if passages.contains(where: { if case .unanswered = $0 { true } else { false } }) { return nil }
        var otherEnvironment: [APNsEnvironment: Int] = [:]
        var answers: [FollowerAnswer] = []
        answers.reserveCapacity(count)
        for (index, passage) in passages.enumerated() {
            let scope = outgoing[index].scope
            let outcome = outcome(of: passage, scope: scope, attempts: attempts(index), now: now)
            if case .tokenGone(let reason) = outcome, EnvironmentHint.hint(forSummaryReason: reason) != nil {
                otherEnvironment[scope.environment, default: 0] += 1
            }
            answers.append(FollowerAnswer(target: target(index), outcome: outcome))
        }
        for (environment, followers) in otherEnvironment.sorted(by: { $0.key < $1.key }) {
            core.logger.warning(
                "APNs refused followers' tokens as BadDeviceToken; they are forgotten",
                metadata: [
                    "activity": "\(count > 0 ? push(0).activityKey : "")", "followers": "\(followers)",
                    "environment": "\(environment.rawValue)",
                    "hint": "\(EnvironmentHint.text(registered: environment))",
                ])
        }
        return answers
    }

    /// What a push's passage means for one follower, by `AnswerPolicy`.
    private func outcome(
        of passage: APNsHalts.Passage, scope: APNsScope, attempts: Int, now: Millis
    ) -> FollowerOutcome {
        switch passage {
        case .unanswered, .held:
            var until = now
            var problem: ConfigurationProblem?
            if case .held(let at, let reason, _) = passage {
                until = at
                problem = reason
            }
            return .held(error: SenderCore.heldError(scope, problem: problem), until: until)
        case .answered(_, .accepted):
            // Nearly every answer is a delivery, which needs no reason, error text or random number.
            return .sent
        case .answered(let result, let answer):
            let error: String
            switch result {
            case .success(let response): error = "APNs answered \(response.status) \(answer.reason ?? "")"
            case .failure(let failure): error = "\(failure)"
            }
            let reason = answer.reason ?? "transport"
            switch core.action(for: answer, attempt: attempts + 1) {
            case .deliver:
                return .sent
            case .retry(let after), .renewTokenAndRetry(let after):
                return .retry(
                    reason: reason, error: error, retryAt: now + after, maxAttempts: configuration.retry.maxAttempts)
            case .forgetToken(let problem):
                return .tokenGone(reason: EnvironmentHint.summaryReason(problem, registered: scope.environment))
            case .reject(let reason), .giveUp(let reason):
                return .rejected(reason: reason)
            case .stop(let problem):
                let until = core.halt(scope, problem: problem, now: now)
                return .held(error: "sending to \(scope) is halted: \(problem)", until: until)
            }
        }
    }
}

extension FanOutSender: SenderPass {
    func pass(now: Millis) async throws -> Bool { try await send(now: now).didWork }

    func releaseClaims() async throws -> Logger.Metadata {
        let released = try await store.releaseFanOutClaims(instance: configuration.instance)
        return released > 0 ? ["fan-out claims": "\(released)"] : [:]
    }
}
