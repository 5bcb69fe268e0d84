import Liveline

/// Everything the mock knows, by concern: the devices behind the tokens (``DeviceTable``), the
/// broadcast channels (``ChannelRegistry``), the fault plan (``FaultState``), the counters, the
/// event streams (``PushSubscribers``) and the dashboard's feed.
///
/// A value owned by ``MockAPNsState`` and changed only under its lock. The request handlers are
/// in `MockStorage+Requests.swift`, what inspection reads in `MockStorage+Inspection.swift`.
struct MockStorage {
    var devices: DeviceTable
    var channels = ChannelRegistry()
    var faults: FaultState
    var stats = MockAPNsStats()
    /// Responses by status, indexed by `status - 100` (a dictionary was measurable per request).
    var statuses = [Int](repeating: 0, count: 500)
    var subscribers = PushSubscribers()
    /// The last pushes, for the dashboard; nil when none is served.
    var feed: DashboardFeed?
    /// Start or last reset, on the mock's clock.
    var startedAt: Millis
    /// `--subscribe CHANNEL=TOKEN`: re-applied after a reset.
    let subscriptions: [String: [String]]

    init(configuration: MockAPNsConfiguration, now: Millis) {
        let simulator = DeviceSimulator(
            budgetPerHour: configuration.budget.effectivePerHour, appDecoding: configuration.appDecoding,
            knownAttributesTypes: configuration.contentStateShapes.byAttributesType.isEmpty
                ? nil : Set(configuration.contentStateShapes.byAttributesType.keys)
        )
        devices = DeviceTable(
            simulator: simulator, shapes: configuration.contentStateShapes,
            historyPolicy: .init(
                perToken: configuration.historyPerToken, keepsEveryPayload: configuration.keepsEveryPayload,
                keepsLastPayload: configuration.keepsLastPayload, maxTokens: configuration.maxHistoryTokens))
        faults = FaultState(plan: configuration.faults, since: now)
        startedAt = now
        subscriptions = configuration.subscriptions
        if configuration.dashboard != nil { feed = DashboardFeed(capacity: 64) }
        applySubscriptions(now: now)
    }

    /// Forgets every activity, channel, history and counter; keeps the fault plan, the event
    /// streams, the feed and the open-connection count, and re-applies the subscriptions.
    mutating func reset(now: Millis) {
        devices = devices.emptied()
        channels = ChannelRegistry()
        faults.since = now
        faults.rateWindows = [:]
        let open = stats.connectionsOpen
        stats = MockAPNsStats()
        stats.connectionsOpen = open
        statuses = [Int](repeating: 0, count: statuses.count)
        startedAt = now
        applySubscriptions(now: now)
    }

    /// Counts an answered request with its status and reason, feeds the dashboard, and keeps
    /// the push in the history of `key` (a token, or `channel:<id>`).
    mutating func record(_ push: consuming AnsweredPush, key: String?, error: APNsError?) {
        countResponse(push.status)
        feed?.append(push)
        if let error { stats.reasons[error.reason, default: 0] += 1 }
        guard let key else { return }
        devices.remember(push, key: key)
    }

    /// Counts one response with `status`.
    mutating func countResponse(_ status: Int) {
        stats.requests += 1
        let index = status - 100
        if statuses.indices.contains(index) { statuses[index] += 1 }
    }

    /// Subscribes the configured tokens' activities to their channels, making the activities
    /// (and channels) that do not exist yet.
    private mutating func applySubscriptions(now: Millis) {
        for (channelID, tokens) in subscriptions.sorted(by: { $0.key < $1.key }) {
            channels.ensure(id: channelID, now: now)
            for token in tokens.map({ $0.lowercased() }) {
                let activityID = devices.tokens[token]?.activityID ?? token
                if devices.activities[activityID] == nil {
                    var activity = devices.newActivity(id: activityID, token: token, attributesType: nil, now: now)
                    activity.updateToken = token
                    devices.insert(activity)
                    devices.modifyToken(token) { $0.activityID = activityID }
                }
                channels.subscribe(activityID: activityID, to: channelID)
                if let index = devices.activities.index(forKey: activityID),
                    !devices.activities.values[index].channels.contains(channelID)
                {
                    devices.activities.values[index].channels.append(channelID)
                }
            }
        }
    }
}
