import LivelineAPNs
import LivelineCore

/// Sends a live session's decisions to Android phones as Live Updates, beside its APNs pushes:
/// the engine decides once, and each decision of an activity with an `android:` block becomes
/// an FCM message by Android's rules (``AndroidPlatform``), sent with an ``FCMClient``.
///
/// Feed it the session's events (``observe(_:)``, from the session's observer; it never
/// blocks) and ``finish()`` after the session returns. Messages of one activity go one after
/// another, in the order decided, each after the one before was answered (FCM keeps no order
/// of its own); activities go side by side. A message that waits for its slot under Android's
/// update rate goes at the next event of the session, or at the end.
public final class AndroidRelay: Sendable {
    /// One message and what became of it.
    public struct Delivery: Sendable {
        public var message: AndroidMessage
        public var target: FCMTarget
        public var outcome: FCMSendOutcome
    }

    /// What the relay sent, when it is finished.
    public struct Report: Sendable, Hashable, CustomStringConvertible {
        public var delivered = 0
        /// Not delivered, by what became of them (gone app instances, a configuration refused, …).
        public var failed: [String: Int] = [:]
        /// Messages of activities with no Android target.
        public var untargeted = 0

        public var description: String {
            var parts = ["\(delivered) Live Update \(delivered == 1 ? "message" : "messages") delivered through FCM"]
            for (kind, count) in failed.sorted(by: { $0.key < $1.key }) { parts.append("\(count) \(kind)") }
            if untargeted > 0 { parts.append("\(untargeted) for activities without an FCM target") }
            return parts.joined(separator: ", ")
        }
    }

    private let continuation: AsyncStream<SessionEvent>.Continuation
    private let worker: Task<Report, Never>

    /// `targets` names each activity's app instance, by the activity's index; `onDelivery` is
    /// told of every answered message (on a task of the relay's; keep it short).
    public init(
        client: FCMClient, project: String, targets: [Int: FCMTarget], spacing: Millis = AndroidRules.updateSpacing,
        onDelivery: @escaping @Sendable (Delivery) -> Void = { _ in }
    ) {
        let (stream, continuation) = AsyncStream<SessionEvent>.makeStream()
        self.continuation = continuation
        worker = Task {
            var platform = AndroidPlatform(spacing: spacing)
            var chains: [Int: Task<Report, Never>] = [:]
            var report = Report()
            func dispatch(_ messages: [AndroidMessage]) {
                for message in messages {
                    guard let target = targets[message.activity] else {
                        report.untargeted += 1
                        continue
                    }
                    let previous = chains[message.activity]
                    chains[message.activity] = Task {
                        var report = await previous?.value ?? Report()
                        let outcome: FCMSendOutcome
                        do {
                            outcome = await client.send(
                                try FCMSendRequest(project: project, target: target, message: message))
                        } catch {
                            outcome = FCMSendOutcome(
                                action: .reject(reason: "request"), answer: .requestInvalid(reason: "request"),
                                failure: "\(error)", attempts: 0)
                        }
                        report.add(outcome)
                        onDelivery(Delivery(message: message, target: target, outcome: outcome))
                        return report
                    }
                }
            }
            for await event in stream {
                switch event {
                case .decided(let push, let engine): dispatch(platform.receive(push, from: engine))
                case .woke(_, let now): dispatch(platform.release(until: now))
                default: break
                }
            }
            dispatch(platform.finish())
            for chain in chains.values { report.merge(await chain.value) }
            return report
        }
    }

    /// Takes one of the session's events.
    public func observe(_ event: SessionEvent) {
        switch event {
        case .decided, .woke: continuation.yield(event)
        default: break
        }
    }

    /// Sends what still waits for its slot, waits for every answer, and returns the count.
    public func finish() async -> Report {
        continuation.finish()
        return await worker.value
    }
}

extension AndroidRelay.Report {
    mutating func add(_ outcome: FCMSendOutcome) {
        switch outcome.action {
        case .deliver: delivered += 1
        case .giveUp, .retry, .renewTokenAndRetry: failed["not delivered (FCM unavailable)", default: 0] += 1
        case .forgetToken: failed["for app instances that are gone", default: 0] += 1
        case .stop: failed["refused for the configuration", default: 0] += 1
        case .reject: failed["rejected", default: 0] += 1
        }
    }

    mutating func merge(_ other: Self) {
        delivered += other.delivered
        untargeted += other.untargeted
        for (kind, count) in other.failed { failed[kind, default: 0] += count }
    }
}
