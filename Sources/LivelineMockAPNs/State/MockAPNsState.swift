import Liveline
import NIOConcurrencyHelpers

/// Everything the mock knows, behind one lock: a ``MockStorage`` (devices, channels, faults,
/// counters, event streams, the dashboard's feed), and the clock that says what "now" is.
///
/// **Concurrency.** Connections on every event loop call into one instance. This file is the
/// lock's one home: each method here takes it once, for a few microseconds of dictionary work,
/// runs one ``MockStorage`` method under it and never awaits inside it. An actor would cost a
/// task hop per request on the hot path (the benchmark target is half of nghttpd's rate); the
/// lock costs an uncontended atomic on 2 cores. Push records owed to
/// ``MockAPNsServer/events(bufferingNewest:)`` are yielded after the lock is released.
/// (The dashboard's reads are in `MockAPNsState+Dashboard.swift`, with the same discipline.)
final class MockAPNsState: Sendable {
    let clock: any MockClock
    let box: NIOLockedValueBox<MockStorage>

    init(configuration: MockAPNsConfiguration) {
        clock = configuration.clock
        box = NIOLockedValueBox(MockStorage(configuration: configuration, now: configuration.clock.now()))
    }

    // MARK: Requests

    /// Answers a validated device push: faults first, then the device.
    func handleDevice(
        _ push: DevicePushRequest, idHeaders: [(String, String)], id: String, roll: Double
    ) -> StreamAnswer {
        let now = clock.now()
        let answer = box.withLockedValue {
            $0.answerDevicePush(push, idHeaders: idHeaders, id: id, roll: roll, now: now)
        }
        answer.publish()
        return answer
    }

    /// Answers a validated broadcast: the channel must exist, then faults, then every subscriber.
    func handleBroadcast(_ push: BroadcastPushRequest, requestID: String, roll: Double) -> StreamAnswer {
        let now = clock.now()
        let answer = box.withLockedValue { $0.answerBroadcast(push, requestID: requestID, roll: roll, now: now) }
        answer.publish()
        return answer
    }

    /// Answers the channel-management endpoints.
    func handleChannelRequest(_ request: ValidatedRequest, requestID: String) -> StreamResponse {
        let now = clock.now()
        return box.withLockedValue { $0.answerChannelRequest(request, requestID: requestID, now: now) }
    }

    /// Counts a request rejected by validation; keeps it in the token's history when there is one.
    func recordRejected(_ error: APNsError, token: String?, id: String, priority: Int, payload: String) {
        let now = clock.now()
        box.withLockedValue {
            $0.recordRejected(error, token: token, id: id, priority: priority, payload: payload, now: now)
        }
        .publish()
    }

    // MARK: Connection events

    func connectionOpened() {
        box.withLockedValue {
            $0.stats.connectionsOpen += 1
            $0.stats.connectionsTotal += 1
        }
    }

    func connectionClosed() {
        box.withLockedValue { $0.stats.connectionsOpen -= 1 }
    }

    func goAwaySent(injected: Bool) {
        box.withLockedValue {
            $0.stats.goAwaysSent += 1
            if injected { $0.stats.faultsInjected += 1 }
        }
    }

    func connectionReset() {
        box.withLockedValue {
            $0.stats.connectionResets += 1
            $0.stats.faultsInjected += 1
            $0.stats.requests += 1
        }
    }

    /// The parts of the fault plan a connection applies itself.
    func connectionFaults() -> FaultState.ConnectionFaults {
        box.withLockedValue { $0.faults.connectionFaults }
    }

    // MARK: Inspection

    func activities() -> [ActivitySnapshot] {
        let now = clock.now()
        return box.withLockedValue { $0.activities(now: now) }
    }

    /// One page of `GET /activities` (see ``ActivityPage``).
    func activityPage(from start: Int, limit: Int) -> ActivityPage {
        let now = clock.now()
        return box.withLockedValue { $0.activityPage(from: start, limit: limit, now: now) }
    }

    func activity(token: String) -> ActivitySnapshot? {
        let now = clock.now()
        return box.withLockedValue { $0.activity(token: token, now: now) }
    }

    func pushes(token: String) -> [AnsweredPush] {
        let key = token.hasPrefix("channel:") ? token : token.lowercased()
        return box.withLockedValue { $0.pushes(key: key) }
    }

    func channels() -> [BroadcastChannel] {
        box.withLockedValue { $0.channels.all }
    }

    func stats() -> MockAPNsStats {
        let now = clock.now()
        return box.withLockedValue { $0.stats(now: now) }
    }

    func counters() -> MockAPNsCounters {
        let now = clock.now()
        return box.withLockedValue { $0.counters(now: now) }
    }

    func faults() -> FaultPlan {
        box.withLockedValue { $0.faults.plan }
    }

    /// Replaces the fault plan; shutdown windows count from now.
    func setFaults(_ plan: FaultPlan) {
        let now = clock.now()
        box.withLockedValue {
            $0.faults.plan = plan
            $0.faults.since = now
        }
    }

    /// Forgets every activity, channel, history and counter; keeps the fault plan, and
    /// re-applies the configured subscriptions.
    func reset() {
        let now = clock.now()
        box.withLockedValue { $0.reset(now: now) }
    }

    // MARK: Event streams

    func events(bufferingNewest limit: Int) -> AsyncStream<AnsweredPush> {
        let (stream, continuation) = AsyncStream<AnsweredPush>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, limit)))
        let id = box.withLockedValue { $0.subscribers.add(continuation) }
        continuation.onTermination = { [weak self] _ in
            self?.box.withLockedValue { $0.subscribers.remove(id) }
        }
        return stream
    }

    /// Ends every event stream (at shutdown).
    func finishEvents() {
        for subscriber in box.withLockedValue({ $0.subscribers.removeAll() }) { subscriber.finish() }
    }

    /// A new 32-byte update token, lowercase hex.
    static func randomToken() -> String {
        var random = SystemRandomNumberGenerator()
        return HexText.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
    }
}
