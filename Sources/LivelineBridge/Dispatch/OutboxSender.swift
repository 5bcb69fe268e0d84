import Foundation
import Liveline
import LivelineAPNs
import Logging
import NIOCore

/// Sends the outbox to APNs and records each answer durably, retrying by APNs' reason.
///
/// Per push, by what APNs (or the transport) answered (APNS.md §4):
/// - **2xx**: removed from the outbox; the answer becomes the activity's last push.
/// - **429, 500, 503, a transport failure, an expired provider token**: tried again after an
///   exponential back-off with full jitter (``RetryPolicy``); after the last attempt the push
///   goes to the dead letters.
/// - **410, `BadDeviceToken`, `DeviceTokenNotForTopic`**: the token is dead. The push goes to
///   the dead letters at once and the token is forgotten, so nothing more is sent to it until
///   the app registers a new one (the activity's later pushes wait for it).
/// - **Any other 4xx**: this push can never succeed: dead letters at once.
/// - **A configuration error** (topic, key, environment): retried like an outage, so that
///   fixing the setup and restarting loses nothing; the error is on the activity and in the log.
///
/// The store hands out one push per activity at a time, the oldest, so an activity's pushes
/// reach APNs in the order they were decided even across retries and instances.
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
    public let wakeSignal = WakeSignal()
    private let store: any Store
    private let client: APNsClient
    private let observer: any DispatchObserver
    private let logger: Logger
    private let host: String

    public init(
        store: any Store, client: APNsClient, configuration: Configuration, observer: any DispatchObserver = SilentDispatchObserver(),
        logger: Logger = Logger(label: "liveline.bridge.outbox")
    ) {
        self.store = store
        self.client = client
        self.configuration = configuration
        self.observer = observer
        self.logger = logger
        self.host = client.configuration.endpoint.description
    }

    /// Sends until the task is cancelled, waking on ``wakeSignal`` or every poll interval.
    public func run() async {
        while !Task.isCancelled {
            do {
                var report = try await send(now: Date())
                while report.claimed >= configuration.batch, !Task.isCancelled {
                    report = try await send(now: Date())
                }
            } catch {
                logger.error("sending the outbox failed; retrying", metadata: ["error": "\(error)"])
            }
            await wakeSignal.wait(upTo: configuration.pollInterval)
        }
    }

    /// One pass: claims the pushes due at `now`, sends them concurrently, records each answer.
    /// Retry times are computed from `now`, so a test in virtual time controls the back-off.
    @discardableResult
    public func send(now: Date) async throws -> PassReport {
        let claimed = try await store.claimDuePushes(
            limit: configuration.batch, instance: configuration.instance, lease: configuration.lease, now: now
        )
        var report = PassReport()
        report.claimed = claimed.count
        guard !claimed.isEmpty else { return report }
        let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for push in claimed {
                group.addTask { try await self.deliver(push, now: now) }
            }
            var outcomes: [Outcome] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        for outcome in outcomes {
            switch outcome {
            case .sent: report.sent += 1
            case .retried: report.retried += 1
            case .deadLettered: report.deadLettered += 1
            }
        }
        return report
    }

    private enum Outcome {
        case sent, retried, deadLettered
    }

    private func deliver(_ claimed: ClaimedPush, now: Date) async throws -> Outcome {
        guard let request = request(for: claimed) else {
            // The target vanished between the claim and now: give the claim back for later.
            _ = try await store.markPushFailed(
                claimed.id, answer: nil, error: "no token to send to", retryAt: now, maxAttempts: configuration.retry.maxAttempts + 1
            )
            return .retried
        }
        let result: Result<APNsResponse, any Error>
        do {
            result = .success(try await client.send(request))
        } catch {
            result = .failure(error)
        }
        let answeredAt = Date()
        switch result {
        case .success(let response):
            let answer = PushAnswer(at: answeredAt, status: response.status, reason: response.reason?.rawValue, apnsID: response.apnsID)
            observer.pushAnswered(status: response.status, reason: response.reason?.rawValue)
            let described = "APNs answered \(response.status) \(response.reason?.rawValue ?? "") from \(host)"
                .replacingOccurrences(of: "  ", with: " ")
            switch APNsDisposition(response) {
            case .delivered:
                try await store.markPushSent(claimed.id, answer: answer)
                if let receivedAt = claimed.push.receivedAt {
                    observer.receiptToAnswer(seconds: max(0, answeredAt.timeIntervalSince(receivedAt)))
                }
                return .sent
            case .retry, .renewTokenAndRetry:
                return try await retry(claimed, answer: answer, error: described, now: now)
            case .configurationError(let advice):
                logger.error("APNs refused the setup", metadata: ["advice": "\(advice)"])
                return try await retry(claimed, answer: answer, error: "\(described): \(advice)", now: now)
            case .tokenGone:
                _ = try await store.markPushUndeliverable(
                    claimed.id, answer: answer, error: "\(described): the token is no longer valid; register a new one",
                    forgetToken: true, now: answeredAt
                )
                observer.deadLettered()
                return .deadLettered
            case .rejected:
                _ = try await store.markPushUndeliverable(claimed.id, answer: answer, error: described, forgetToken: false, now: answeredAt)
                observer.deadLettered()
                return .deadLettered
            }
        case .failure(let error):
            observer.pushAnswered(status: 0, reason: "transport")
            return try await retry(claimed, answer: nil, error: "\(error)", now: now)
        }
    }

    private func retry(_ claimed: ClaimedPush, answer: PushAnswer?, error: String, now: Date) async throws -> Outcome {
        let attempt = claimed.attempts + 2
        let delay = configuration.retry.delay(beforeAttempt: attempt, random: Double.random(in: 0..<1))
        let outcome = try await store.markPushFailed(
            claimed.id, answer: answer, error: error, retryAt: now.addingTimeInterval(Double(delay) / 1000),
            maxAttempts: configuration.retry.maxAttempts
        )
        switch outcome {
        case .deadLettered:
            observer.deadLettered()
            logger.warning("a push went to the dead letters after its last attempt", metadata: ["error": "\(error)"])
            return .deadLettered
        case .retryScheduled, .notFound:
            observer.retried(reason: answer?.reason ?? (answer == nil ? "transport" : "status \(answer?.status ?? 0)"))
            return .retried
        }
    }

    /// The APNs request for a claimed push and its activity's current target.
    func request(for claimed: ClaimedPush) -> APNsRequest? {
        let push = claimed.push
        let body = ByteBuffer(bytes: push.payload)
        let fields = ["apns-topic", "apns-push-type", "apns-priority", "apns-expiration"].compactMap { name in
            push.headers[name].map { (name: name, value: $0) }
        }
        if push.kind == .start {
            guard let token = claimed.target.pushToStartToken else { return nil }
            return APNsRequest(path: "/3/device/" + token, headers: fields, body: body)
        }
        if let token = claimed.target.updateToken {
            return APNsRequest(path: "/3/device/" + token, headers: fields, body: body)
        }
        if let channel = claimed.target.channelID, let topic = push.headers["apns-topic"] {
            let bundleID = topic.hasSuffix(".push-type.liveactivity") ? String(topic.dropLast(".push-type.liveactivity".count)) : topic
            return APNsRequest.broadcast(
                bundleID: bundleID, channel: channel, priority: push.priority == 10 ? .high : .low,
                expiration: Int64(push.headers["apns-expiration"] ?? "0") ?? 0, payload: push.payload
            )
        }
        return nil
    }
}
