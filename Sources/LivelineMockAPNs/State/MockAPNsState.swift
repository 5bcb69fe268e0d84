import Liveline
import NIOConcurrencyHelpers

/// Everything the mock knows: activities, channels, histories, counters and the fault plan.
///
/// **Concurrency.** Connections on every event loop call into one instance. The state sits in
/// a single `NIOLockedValueBox`: each request takes the lock once, for a few microseconds of
/// dictionary work, and never awaits inside it. An actor would cost a task hop per request on
/// the hot path (the benchmark target is half of nghttpd's rate); the lock costs an
/// uncontended atomic on 2 cores. Events for ``MockAPNsServer/events(bufferingNewest:)`` are
/// yielded after the lock is released.
final class MockAPNsState: Sendable {
    /// What the mock keeps per device token (or `channel:<id>`), in one dictionary so a push
    /// costs one lookup of its token.
    struct TokenState {
        /// The topic the token was first used with.
        var topic: String?
        /// The activity behind an update token.
        var activityID: String?
        /// How many activities a push-to-start token started; nil for other tokens.
        var starts: Int?
        var history: PushHistory?
    }

    struct Storage {
        var activities: [String: ActivityRecord] = [:]
        var activityOrder: [String] = []
        var tokens: [String: TokenState] = [:]
        var historyCount = 0
        var shapes = Interner<ContentShape>()
        var topics = Interner<String>()
        var rateWindows: [String: RecentPushes] = [:]
        var channels = ChannelRegistry()
        var stats = MockAPNsStats()
        /// Responses by status, indexed by `status - 100` (a dictionary was measurable per request).
        var statuses = [Int](repeating: 0, count: 500)
        var startedAt: Millis
        var faults: FaultPlan
        var faultsSince: Millis
        var subscribers: [Int: AsyncStream<PushRecord>.Continuation] = [:]
        var nextSubscriber = 0
        /// The last pushes, for the dashboard; nil when none is served.
        var feed: DashboardFeed?
    }

    let clock: any MockClock
    let box: NIOLockedValueBox<Storage>
    private let simulator: DeviceSimulator
    private let shapes: ContentStateShapes
    private let subscriptions: [String: [String]]
    private let historyPerToken: Int
    private let keepsEveryPayload: Bool
    private let keepsLastPayload: Bool
    private let maxHistoryTokens: Int

    init(configuration: MockAPNsConfiguration) {
        clock = configuration.clock
        simulator = DeviceSimulator(
            budgetPerHour: configuration.budget.effectivePerHour, appDecoding: configuration.appDecoding,
            knownAttributesTypes: configuration.contentStateShapes.byAttributesType.isEmpty
                ? nil : Set(configuration.contentStateShapes.byAttributesType.keys)
        )
        shapes = configuration.contentStateShapes
        subscriptions = configuration.subscriptions
        historyPerToken = configuration.historyPerToken
        keepsEveryPayload = configuration.keepsEveryPayload
        keepsLastPayload = configuration.keepsLastPayload
        maxHistoryTokens = configuration.maxHistoryTokens
        let now = configuration.clock.now()
        var storage = Storage(startedAt: now, faults: configuration.faults, faultsSince: now)
        if configuration.dashboard != nil { storage.feed = DashboardFeed(capacity: 64) }
        Self.applySubscriptions(configuration.subscriptions, to: &storage, simulator: simulator, shapes: shapes, now: now)
        box = NIOLockedValueBox(storage)
    }

    // MARK: Requests

    /// Answers a validated device push: faults first, then the device.
    func handleDevice(_ push: DevicePushRequest, idHeaders: [(String, String)], id: String, roll: Double) -> (APNsResponse, ConnectionDirective) {
        let now = clock.now()
        let (response, directive, pushRecord, subscribers) = box.withLockedValue {
            (storage: inout Storage) -> (APNsResponse, ConnectionDirective, PushRecord?, [AsyncStream<PushRecord>.Continuation]) in
            storage.stats.devicePushes += 1
            var deliveries: [DeviceDelivery] = []
            var directive = ConnectionDirective.none
            var error: APNsError?
            var timestamp: Double?
            if let bound = storage.tokens[push.token]?.topic, bound != push.topic {
                error = .deviceTokenNotForTopic
            } else if let fault = injectedFault(&storage, key: push.token, roll: roll, now: now) {
                error = fault.error
                directive = fault.directive
            } else {
                timestamp = push.payload.timestamp
                deliveries = deliver(push, payload: push.payload, storage: &storage, now: now)
            }
            let response = error.map { APNsResponse.error($0, headers: idHeaders, now: now) }
                ?? APNsResponse(status: 200, headers: idHeaders)
            let pushRecord = PushRecord(
                time: now, kind: .device, token: push.token, channelID: nil, id: id, priority: push.priority,
                status: response.status, reason: error?.reason, deliveries: deliveries, payload: push.bodyText,
                warnings: push.warnings, timestamp: timestamp)
            if storage.subscribers.isEmpty {
                record(consume pushRecord, key: push.token, error: error, storage: &storage)
                return (response, directive, nil, [])
            }
            record(pushRecord, key: push.token, error: error, storage: &storage)
            return (response, directive, pushRecord, Array(storage.subscribers.values))
        }
        if let pushRecord { for subscriber in subscribers { subscriber.yield(pushRecord) } }
        return (response, directive)
    }

    /// Answers a validated broadcast: the channel must exist, then faults, then every subscriber.
    func handleBroadcast(_ push: BroadcastPushRequest, requestID: String, roll: Double) -> (APNsResponse, ConnectionDirective) {
        let now = clock.now()
        let headers = [("apns-request-id", requestID)]
        let (response, directive, pushRecord, subscribers) = box.withLockedValue { storage in
            storage.stats.broadcasts += 1
            var deliveries: [DeviceDelivery] = []
            var directive = ConnectionDirective.none
            var error: APNsError?
            let key = "channel:\(push.channelID)"
            if let channel = storage.channels.channel(push.channelID, bundleID: push.bundleID) {
                if channel.messageStoragePolicy == 0, push.expiration != 0 {
                    error = .badExpirationDate
                } else if let fault = injectedFault(&storage, key: key, roll: roll, now: now) {
                    error = fault.error
                    directive = fault.directive
                } else {
                    let payload = LiveActivityPayload(body: push.body, loneSurrogate: push.loneSurrogate)
                    for activityID in storage.channels.subscribers[push.channelID] ?? [] {
                        if let delivery = apply(payload, to: activityID, route: .broadcast, priority: push.priority,
                                                storage: &storage, now: now) {
                            deliveries.append(delivery)
                        }
                    }
                    storage.channels.store(push.body, priority: push.priority, on: push.channelID, now: now)
                }
            } else {
                error = .channelNotRegistered
            }
            let response = error.map { APNsResponse.error($0, headers: headers, now: now) }
                ?? APNsResponse(status: 200, headers: headers)
            let pushRecord = PushRecord(
                time: now, kind: .broadcast, token: nil, channelID: push.channelID, id: requestID,
                priority: push.priority, status: response.status, reason: error?.reason, deliveries: deliveries,
                payload: push.bodyText, warnings: push.warnings)
            record(pushRecord, key: key, error: error, storage: &storage)
            return (response, directive, pushRecord, storage.subscribers.isEmpty ? [] : Array(storage.subscribers.values))
        }
        for subscriber in subscribers { subscriber.yield(pushRecord) }
        return (response, directive)
    }

    /// Answers the channel-management endpoints.
    func handleChannelRequest(_ request: ValidatedRequest, requestID: String) -> APNsResponse {
        let now = clock.now()
        let headers = [("apns-request-id", requestID)]
        return box.withLockedValue { storage in
            storage.stats.channelRequests += 1
            let response: APNsResponse
            switch request {
            case .createChannel(let bundleID, let policy, _):
                if let channel = storage.channels.create(bundleID: bundleID, policy: policy, now: now) {
                    response = APNsResponse(status: 201, headers: headers + [("apns-channel-id", channel.id)])
                } else {
                    response = .error(.cannotCreateChannelConfig, headers: headers, now: now)
                }
            case .readChannel(let bundleID, let channelID, _):
                if let channel = storage.channels.channel(channelID, bundleID: bundleID) {
                    response = .json(200, .object(JSONObject([
                        ("message-storage-policy", .int(Int64(channel.messageStoragePolicy))),
                        ("push-type", .string(channel.pushType)),
                    ])), headers: headers + [("apns-channel-id", channel.id)])
                } else {
                    response = .error(.channelNotRegistered, headers: headers, now: now)
                }
            case .deleteChannel(let bundleID, let channelID, _):
                response = storage.channels.delete(channelID, bundleID: bundleID)
                    ? APNsResponse(status: 204, headers: headers)
                    : .error(.channelNotRegistered, headers: headers, now: now)
            case .listChannels(let bundleID, _):
                let ids = storage.channels.list(bundleID: bundleID).map { JSONValue.string($0) }
                response = .json(200, .object(JSONObject([("channels", .array(ids))])), headers: headers)
            case .device, .broadcast:
                response = .error(.badPath, headers: headers, now: now)
            }
            storage.stats.requests += 1
            Self.count(response.status, in: &storage.statuses)
            return response
        }
    }

    /// Counts a request rejected by validation; keeps it in the token's history when there is one.
    func recordRejected(_ error: APNsError, token: String?, id: String, priority: Int, payload: String) {
        let now = clock.now()
        let (pushRecord, subscribers) = box.withLockedValue { storage in
            let pushRecord = PushRecord(
                time: now, kind: .device, token: token, channelID: nil, id: id, priority: priority, status: error.status,
                reason: error.reason, deliveries: [], payload: payload)
            record(pushRecord, key: token, error: error, storage: &storage)
            return (pushRecord, storage.subscribers.isEmpty ? [] : Array(storage.subscribers.values))
        }
        for subscriber in subscribers { subscriber.yield(pushRecord) }
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
    func connectionFaults() -> (latency: Latency?, goAwayEvery: Int?, resetEvery: Int?, seed: UInt64) {
        box.withLockedValue { ($0.faults.latency, $0.faults.goAwayEvery, $0.faults.resetEvery, $0.faults.seed) }
    }

    // MARK: Inspection

    func activities() -> [ActivitySnapshot] {
        let now = clock.now()
        return box.withLockedValue { storage in
            storage.activityOrder.compactMap { storage.activities[$0].map { snapshot($0, now: now) } }
        }
    }

    /// One page of the activities in the order they appeared: at most `limit` from position
    /// `start`, the position after the page when more follow, and how many there are.
    /// Positions stay put while the mock runs (activities are only added), so a cursor holds
    /// across pages; a reset starts them again.
    func activities(from start: Int, limit: Int) -> (page: [ActivitySnapshot], next: Int?, total: Int) {
        let now = clock.now()
        return box.withLockedValue { storage in
            let order = storage.activityOrder
            let first = min(max(0, start), order.count)
            let end = min(order.count, first + max(1, limit))
            let page = order[first..<end].compactMap { storage.activities[$0].map { snapshot($0, now: now) } }
            return (page, end < order.count ? end : nil, order.count)
        }
    }

    func activity(token: String) -> ActivitySnapshot? {
        let now = clock.now()
        let key = token.lowercased()
        return box.withLockedValue { storage in
            let id = storage.tokens[key]?.activityID ?? key
            return storage.activities[id].map { snapshot($0, now: now) }
        }
    }

    func pushes(token: String) -> [PushRecord] {
        let key = token.hasPrefix("channel:") ? token : token.lowercased()
        return box.withLockedValue { $0.tokens[key]?.history?.records(key: key) ?? [] }
    }

    func channels() -> [BroadcastChannel] {
        box.withLockedValue { $0.channels.all }
    }

    func stats() -> MockAPNsStats {
        let now = clock.now()
        return box.withLockedValue { storage in
            var stats = storage.stats
            for (offset, count) in storage.statuses.enumerated() where count > 0 {
                stats.statuses[String(offset + 100)] = count
            }
            stats.activities = storage.activities.count
            var lifecycles: [String: Int] = [:]
            var device = ActivityCounters()
            for record in storage.activities.values {
                lifecycles[record.lifecycle(at: now).rawValue, default: 0] += 1
                device.received += record.counters.received
                device.rendered += record.counters.rendered
                device.droppedOld += record.counters.droppedOld
                device.throttled += record.counters.throttled
                device.wouldNotRender += record.counters.wouldNotRender
                device.ignoredAfterEnd += record.counters.ignoredAfterEnd
                device.alerts += record.counters.alerts
            }
            stats.lifecycles = lifecycles
            stats.device = device
            stats.uptimeMillis = now - storage.startedAt
            return stats
        }
    }

    func faults() -> FaultPlan {
        box.withLockedValue { $0.faults }
    }

    /// Replaces the fault plan; shutdown windows count from now.
    func setFaults(_ plan: FaultPlan) {
        let now = clock.now()
        box.withLockedValue {
            $0.faults = plan
            $0.faultsSince = now
        }
    }

    /// Forgets every activity, channel, history and counter; keeps the fault plan, and
    /// re-applies the configured subscriptions.
    func reset() {
        let now = clock.now()
        box.withLockedValue { storage in
            var fresh = Storage(startedAt: now, faults: storage.faults, faultsSince: now)
            fresh.subscribers = storage.subscribers
            fresh.nextSubscriber = storage.nextSubscriber
            fresh.feed = storage.feed
            fresh.stats.connectionsOpen = storage.stats.connectionsOpen
            Self.applySubscriptions(subscriptions, to: &fresh, simulator: simulator, shapes: shapes, now: now)
            storage = fresh
        }
    }

    func events(bufferingNewest limit: Int) -> AsyncStream<PushRecord> {
        let (stream, continuation) = AsyncStream<PushRecord>.makeStream(bufferingPolicy: .bufferingNewest(max(1, limit)))
        let id = box.withLockedValue { storage in
            let id = storage.nextSubscriber
            storage.nextSubscriber += 1
            storage.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.box.withLockedValue { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every event stream (at shutdown).
    func finishEvents() {
        let subscribers = box.withLockedValue { storage in
            let all = Array(storage.subscribers.values)
            storage.subscribers = [:]
            return all
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    // MARK: Under the lock

    private struct InjectedFault {
        var error: APNsError
        var directive: ConnectionDirective
    }

    private func injectedFault(_ storage: inout Storage, key: String, roll: Double, now: Millis) -> InjectedFault? {
        if storage.faults.isEmpty { return nil }
        let plan = storage.faults
        let elapsed = now - storage.faultsSince
        if !plan.unregisteredTokens.isEmpty, plan.unregisteredTokens.contains(key) {
            storage.stats.faultsInjected += 1
            return InjectedFault(error: .unregistered, directive: .none)
        }
        if plan.shutdownWindows.contains(where: { $0.contains(elapsed: elapsed) }) {
            storage.stats.faultsInjected += 1
            return InjectedFault(error: .shutdown, directive: .goAway(reason: "Shutdown"))
        }
        if let error = plan.error(forRoll: roll) {
            storage.stats.faultsInjected += 1
            return InjectedFault(error: error, directive: .none)
        }
        if let limit = plan.tooManyRequestsAfter,
           !storage.rateWindows[key, default: RecentPushes()].admit(now: now, limit: limit, window: 60_000) {
            storage.stats.faultsInjected += 1
            return InjectedFault(error: .tooManyRequests, directive: .none)
        }
        return nil
    }

    private func record(_ pushRecord: consuming PushRecord, key: String?, error: APNsError?, storage: inout Storage) {
        storage.stats.requests += 1
        Self.count(pushRecord.status, in: &storage.statuses)
        storage.feed?.append(pushRecord)
        if let error { storage.stats.reasons[error.reason, default: 0] += 1 }
        guard let key else { return }
        let canStartHistory = storage.historyCount < maxHistoryTokens
        let capacity = historyPerToken, keepsEvery = keepsEveryPayload, keepsLast = keepsLastPayload
        var started = false
        modifyToken(key, in: &storage) { token in
            if token.history != nil {
                token.history?.append(pushRecord, key: key)
            } else if canStartHistory {
                var history = PushHistory(capacity: capacity, keepsEveryPayload: keepsEvery, keepsLastPayload: keepsLast)
                history.append(pushRecord, key: key)
                token.history = history
                started = true
            }
        }
        if started { storage.historyCount += 1 }
    }

    private func deliver(
        _ push: DevicePushRequest, payload: LiveActivityPayload, storage: inout Storage, now: Millis
    ) -> [DeviceDelivery] {
        let token = push.token
        let known = storage.tokens[token]
        if let activityID = known?.activityID {
            return apply(payload, to: activityID, route: .update, priority: push.priority, storage: &storage, now: now)
                .map { [$0] } ?? []
        }
        if known?.topic == nil {
            let topic = storage.topics.intern(push.topic)
            modifyToken(token, in: &storage) { $0.topic = topic }
        }
        if payload.event == .start || known?.starts != nil {
            return [start(payload, token: token, priority: push.priority, storage: &storage, now: now)]
        }
        var record = simulator.newRecord(id: token, now: now)
        record.updateToken = token
        if let shape = shapes.shape(token: token, attributesType: nil) {
            record.shape = shape
            record.shapeIsDeclared = true
        }
        insert(record, storage: &storage)
        modifyToken(token, in: &storage) { $0.activityID = token }
        return apply(payload, to: token, route: .update, priority: push.priority, storage: &storage, now: now)
            .map { [$0] } ?? []
    }

    /// A push to a push-to-start token: each start makes a new activity.
    private func start(
        _ payload: LiveActivityPayload, token: String, priority: Int, storage: inout Storage, now: Millis
    ) -> DeviceDelivery {
        var count = 0
        modifyToken(token, in: &storage) { state in
            count = (state.starts ?? 0) + 1
            state.starts = count
        }
        var record = simulator.newRecord(id: "start:\(token.prefix(12)):\(count)", now: now)
        record.pushToStartToken = token
        if let shape = shapes.shape(token: nil, attributesType: payload.attributesType) {
            record.shape = shape
            record.shapeIsDeclared = true
        }
        var delivery = simulator.apply(payload, to: &record, route: .start, priority: priority, now: now)
        var storedMessage: (String, ChannelRegistry.StoredMessage)?
        if delivery.outcome == .rendered {
            if payload.inputPushToken {
                let updateToken = Self.randomToken()
                record.updateToken = updateToken
                let activityID = record.id
                modifyToken(updateToken, in: &storage) { $0.activityID = activityID }
                delivery.updateToken = updateToken
            }
            if let channelID = payload.inputPushChannel {
                storage.channels.ensure(id: channelID, now: now)
                storage.channels.subscribe(activityID: record.id, to: channelID)
                record.channels.append(channelID)
                if let message = storage.channels.storedMessage(on: channelID, now: now) {
                    storedMessage = (channelID, message)
                }
            }
        }
        insert(record, storage: &storage)
        if let (_, message) = storedMessage {
            _ = apply(LiveActivityPayload(body: message.payload), to: record.id, route: .broadcast,
                      priority: message.priority, storage: &storage, now: now)
        }
        return delivery
    }

    private static func count(_ status: Int, in statuses: inout [Int]) {
        let index = status - 100
        if statuses.indices.contains(index) { statuses[index] += 1 }
    }

    /// Mutates the state of `token` in place, creating it when new.
    private func modifyToken(_ token: String, in storage: inout Storage, _ body: (inout TokenState) -> Void) {
        if let index = storage.tokens.index(forKey: token) {
            body(&storage.tokens.values[index])
        } else {
            var state = TokenState()
            body(&state)
            storage.tokens[token] = state
        }
    }

    private func apply(
        _ payload: LiveActivityPayload, to activityID: String, route: DeviceSimulator.Route, priority: Int,
        storage: inout Storage, now: Millis
    ) -> DeviceDelivery? {
        guard let index = storage.activities.index(forKey: activityID) else { return nil }
        // The record is only ever reached in place: reading `values[index].shape` copied the
        // whole record, twice a push.
        let (delivery, newShape) = Self.apply(payload, simulator: simulator, to: &storage.activities.values[index],
                                              route: route, priority: priority, now: now)
        if let newShape {
            storage.activities.values[index].shape = storage.shapes.intern(newShape)
        }
        return delivery
    }

    /// Applies a push to a record in place; returns the delivery, and the record's shape when
    /// the push changed it (to be interned).
    private static func apply(
        _ payload: LiveActivityPayload, simulator: DeviceSimulator, to record: inout ActivityRecord,
        route: DeviceSimulator.Route, priority: Int, now: Millis
    ) -> (DeviceDelivery, ContentShape?) {
        let shapeBefore = record.shape
        let delivery = simulator.apply(payload, to: &record, route: route, priority: priority, now: now)
        guard let shape = record.shape, shape != shapeBefore else { return (delivery, nil) }
        return (delivery, shape)
    }

    private func insert(_ record: ActivityRecord, storage: inout Storage) {
        if storage.activities[record.id] == nil { storage.activityOrder.append(record.id) }
        storage.activities[record.id] = record
    }

    func snapshot(_ record: ActivityRecord, now: Millis) -> ActivitySnapshot {
        var budget = record.budget
        return ActivitySnapshot(
            id: record.id, updateToken: record.updateToken, pushToStartToken: record.pushToStartToken,
            channels: record.channels, attributesType: record.attributesType, attributes: record.attributes,
            contentState: record.contentState, lifecycle: record.lifecycle(at: now),
            relevanceScore: record.relevanceScore, staleDate: record.staleDate, dismissalDate: record.dismissalDate,
            startedAt: record.startedAt, endedAt: record.endInstant(at: now), lastTimestamp: record.lastTimestamp,
            budgetRemaining: budget.available(at: now), counters: record.counters, lastReasons: record.lastReasons,
            lastAlert: record.lastAlert)
    }

    private static func applySubscriptions(
        _ subscriptions: [String: [String]], to storage: inout Storage, simulator: DeviceSimulator,
        shapes: ContentStateShapes, now: Millis
    ) {
        for (channelID, tokens) in subscriptions.sorted(by: { $0.key < $1.key }) {
            storage.channels.ensure(id: channelID, now: now)
            for token in tokens.map({ $0.lowercased() }) {
                let activityID = storage.tokens[token]?.activityID ?? token
                if storage.activities[activityID] == nil {
                    var record = simulator.newRecord(id: activityID, now: now)
                    record.updateToken = token
                    if let shape = shapes.shape(token: token, attributesType: nil) {
                        record.shape = shape
                        record.shapeIsDeclared = true
                    }
                    storage.activities[activityID] = record
                    storage.activityOrder.append(activityID)
                    storage.tokens[token, default: TokenState()].activityID = activityID
                }
                storage.channels.subscribe(activityID: activityID, to: channelID)
                if let index = storage.activities.index(forKey: activityID),
                   !storage.activities.values[index].channels.contains(channelID) {
                    storage.activities.values[index].channels.append(channelID)
                }
            }
        }
    }

    /// A new 32-byte update token, lowercase hex.
    static func randomToken() -> String {
        var random = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &random)
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
