import Liveline

/// What the inspection API, ``MockAPNsServer`` and the dashboard read. Runs under
/// ``MockAPNsState``'s lock; returns values that own no part of the storage.
extension MockStorage {
    /// Every activity, in the order they appeared.
    func activities(now: Millis) -> [ActivitySnapshot] {
        devices.activityOrder.compactMap { devices.activities[$0].map { devices.snapshot($0, now: now) } }
    }

    /// One page of the activities in the order they appeared: at most `limit` from position
    /// `start`, the position after the page when more follow, and how many there are.
    /// Positions stay put while the mock runs (activities are only added), so a cursor holds
    /// across pages; a reset starts them again.
    func activityPage(from start: Int, limit: Int, now: Millis) -> ActivityPage {
        let order = devices.activityOrder
        let first = min(max(0, start), order.count)
        let end = min(order.count, first + max(1, limit))
        let page = order[first..<end].compactMap { devices.activities[$0].map { devices.snapshot($0, now: now) } }
        return ActivityPage(activities: page, total: order.count, next: end < order.count ? String(end) : nil)
    }

    /// The activity behind `token` (an update or push-to-start token, or an activity id).
    func activity(token: String, now: Millis) -> ActivitySnapshot? {
        let key = token.lowercased()
        let id = devices.tokens[key]?.activityID ?? key
        return devices.activities[id].map { devices.snapshot($0, now: now) }
    }

    /// The history of `key`, a token or `channel:<id>`.
    func pushes(key: String) -> [AnsweredPush] {
        devices.tokens[key]?.history?.records(key: key) ?? []
    }

    /// The counters, with the responses by status, the activities by lifecycle and what their
    /// devices did, as of `now`.
    func stats(now: Millis) -> MockAPNsStats {
        var stats = self.stats
        stats.statuses = statusCounts
        stats.activities = devices.activities.count
        var lifecycles: [String: Int] = [:]
        var device = DeviceCounts()
        for activity in devices.activities.values {
            lifecycles[activity.lifecycle(at: now).rawValue, default: 0] += 1
            device += activity.counters
        }
        stats.lifecycles = lifecycles
        stats.device = device
        stats.uptimeMillis = now - startedAt
        return stats
    }

    /// The running counters alone, without a pass over the activities.
    func counters(now: Millis) -> MockAPNsCounters {
        var counters = MockAPNsCounters()
        counters.requests = stats.requests
        counters.statuses = statusCounts
        counters.devicePushes = stats.devicePushes
        counters.broadcasts = stats.broadcasts
        counters.activities = devices.activities.count
        counters.uptimeMillis = now - startedAt
        return counters
    }

    /// Responses by status, as text keys (`"200"`).
    var statusCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for (offset, count) in statuses.enumerated() where count > 0 { counts[String(offset + 100)] = count }
        return counts
    }
}
