import Liveline

/// The devices behind the tokens: every simulated activity, what the mock keeps per token, and
/// each token's push history.
///
/// Part of ``MockStorage``; every method runs under ``MockAPNsState``'s lock.
struct DeviceTable {
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

    /// How much history the mock keeps (``MockAPNsConfiguration``'s history settings).
    struct HistoryPolicy {
        var perToken: Int
        var keepsEveryPayload: Bool
        var keepsLastPayload: Bool
        /// Tokens that get a history; later ones get none.
        var maxTokens: Int
    }

    let simulator: DeviceSimulator
    let shapes: ContentStateShapes
    let historyPolicy: HistoryPolicy
    var activities: [String: DeviceActivity] = [:]
    /// Activity ids in the order they appeared (inspection lists them so).
    var activityOrder: [String] = []
    var tokens: [String: TokenState] = [:]
    var historyCount = 0
    var shapeInterner = Interner<ContentShape>()
    var topics = Interner<String>()

    init(simulator: DeviceSimulator, shapes: ContentStateShapes, historyPolicy: HistoryPolicy) {
        self.simulator = simulator
        self.shapes = shapes
        self.historyPolicy = historyPolicy
    }

    /// The same table, empty.
    func emptied() -> DeviceTable {
        DeviceTable(simulator: simulator, shapes: shapes, historyPolicy: historyPolicy)
    }

    /// Mutates the state of `token` in place, creating it when new.
    mutating func modifyToken(_ token: String, _ body: (inout TokenState) -> Void) {
        if let index = tokens.index(forKey: token) {
            body(&tokens.values[index])
        } else {
            var state = TokenState()
            body(&state)
            tokens[token] = state
        }
    }

    /// A new activity for `id`, with the shape declared for its token or attributes type.
    func newActivity(id: String, token: String?, attributesType: String?, now: Millis) -> DeviceActivity {
        var activity = simulator.newActivity(id: id, now: now)
        if let shape = shapes.shape(token: token, attributesType: attributesType) {
            activity.shape = shape
            activity.shapeIsDeclared = true
        }
        return activity
    }

    mutating func insert(_ activity: DeviceActivity) {
        if activities[activity.id] == nil { activityOrder.append(activity.id) }
        activities[activity.id] = activity
    }

    /// Applies a push to an activity in place; nil when there is no such activity.
    mutating func apply(
        _ payload: LiveActivityPayload, to activityID: String, route: DeviceSimulator.Route, priority: Int, now: Millis
    ) -> DeviceDelivery? {
        guard let index = activities.index(forKey: activityID) else { return nil }
        // The activity is only ever reached in place: reading `values[index].shape` copied the
        // whole value, twice a push.
        let shapeBefore = activities.values[index].shape
        let delivery = simulator.apply(
            payload, to: &activities.values[index], route: route, priority: priority, now: now)
        if let shape = activities.values[index].shape, shape != shapeBefore {
            activities.values[index].shape = shapeInterner.intern(shape)
        }
        return delivery
    }

    /// Keeps `push` in the history of `key` (a token or `channel:<id>`), starting one while
    /// fewer than the policy's tokens have one.
    mutating func remember(_ push: consuming AnsweredPush, key: String) {
        let canStart = historyCount < historyPolicy.maxTokens
        let policy = historyPolicy
        var started = false
        modifyToken(key) { token in
            if token.history != nil {
                token.history?.append(push, key: key)
            } else if canStart {
                var history = PushHistory(
                    capacity: policy.perToken, keepsEveryPayload: policy.keepsEveryPayload,
                    keepsLastPayload: policy.keepsLastPayload)
                history.append(push, key: key)
                token.history = history
                started = true
            }
        }
        if started { historyCount += 1 }
    }

    /// What inspection shows of one activity.
    func snapshot(_ activity: DeviceActivity, now: Millis) -> ActivitySnapshot {
        var budget = activity.budget
        return ActivitySnapshot(
            id: activity.id, updateToken: activity.updateToken, pushToStartToken: activity.pushToStartToken,
            channels: activity.channels, attributesType: activity.attributesType, attributes: activity.attributes,
            contentState: activity.contentState, lifecycle: activity.lifecycle(at: now),
            relevanceScore: activity.relevanceScore, staleDate: activity.staleDate,
            dismissalDate: activity.dismissalDate,
            startedAt: activity.startedAt, endedAt: activity.endInstant(at: now), lastTimestamp: activity.lastTimestamp,
            budgetRemaining: budget.available(at: now), counters: activity.counters, lastReasons: activity.lastReasons,
            lastAlert: activity.lastAlert)
    }
}
