import Foundation
import Liveline

extension MockAPNsState {
    /// What one dashboard frame shows of the device: counts over every activity and the few
    /// activities drawn in full.
    struct DashboardSelection {
        var now: Millis
        var total = 0
        /// Activities the search matched (all of them without a search).
        var matched = 0
        /// Every activity by lifecycle, and what the device did with every push, summed.
        var lifecycles: [String: Int] = [:]
        var outcomes = DeviceCounts()
        var stats = MockAPNsStats()
        /// The best `limit` matches, in the order the Lock Screen shows them.
        var activities: [ActivitySnapshot] = []
        /// The feed's sequence when the selection was made.
        var sequence: UInt64 = 0
    }

    /// One pass over every activity under the lock: counts, and the top `limit` activities that
    /// `search` matches, by ``DashboardOrder``. At 100,000 activities the pass takes a few
    /// milliseconds, so frames are made at most a few times a second (``DashboardBroadcaster``).
    func dashboardSelection(limit: Int, search: DashboardSearch?) -> DashboardSelection {
        let now = clock.now()
        return box.withLockedValue { storage in
            var selection = DashboardSelection(now: now)
            var best = DashboardOrder.Best(limit: limit)
            var lifecycleCounts = [Int](repeating: 0, count: ActivityLifecycle.allCases.count)
            let activities = storage.devices.activities
            for index in activities.indices {
                let record = activities.values[index]
                let lifecycle = record.lifecycle(at: now)
                lifecycleCounts[DashboardOrder.lifecycleIndex(lifecycle)] += 1
                selection.outcomes += record.counters
                if let search, !search.matches(record) { continue }
                selection.matched += 1
                best.offer(index, key: DashboardOrder.key(record, lifecycle: lifecycle))
            }
            selection.total = activities.count
            for (offset, lifecycle) in ActivityLifecycle.allCases.enumerated() where lifecycleCounts[offset] > 0 {
                selection.lifecycles[lifecycle.rawValue] = lifecycleCounts[offset]
            }
            selection.activities = best.indices.map { storage.devices.snapshot(activities.values[$0], now: now) }
            selection.stats = storage.stats
            selection.stats.statuses = storage.statusCounts
            selection.sequence = storage.feed?.sequence ?? 0
            return selection
        }
    }

    /// Pushes the feed holds after `sequence`.
    func dashboardFeed(after sequence: UInt64) -> (recent: [DashboardFeed.Entry], notable: [DashboardFeed.Entry]) {
        box.withLockedValue { $0.feed?.entries(after: sequence) ?? ([], []) }
    }

    /// The feed's sequence: it moves with every answered push.
    func dashboardSequence() -> UInt64 {
        box.withLockedValue { $0.feed?.sequence ?? 0 }
    }
}

/// Which activities a dashboard search matches: a token or id prefix, an attributes type, or
/// one of the tokens whose name matched.
struct DashboardSearch: Sendable {
    let prefix: String
    let namedTokens: Set<String>

    init?(query: String, names: [String: String]) {
        let trimmed = query.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty else { return nil }
        prefix = trimmed
        namedTokens = Set(names.filter { $0.value.lowercased().contains(trimmed) }.keys)
    }

    func matches(_ record: DeviceActivity) -> Bool {
        if record.id.hasPrefix(prefix) { return true }
        if let token = record.updateToken, token.hasPrefix(prefix) || namedTokens.contains(token) { return true }
        if let token = record.pushToStartToken, token.hasPrefix(prefix) || namedTokens.contains(token) { return true }
        if let type = record.attributesType, type.lowercased() == prefix { return true }
        return false
    }
}

/// The order the Lock Screen shows activities in: those on screen (active, stale, ended) before
/// those waiting or gone, then by relevance score (highest first), then oldest first.
enum DashboardOrder {
    struct Key: Comparable {
        var rank: Int
        var relevance: Double
        var createdAt: Millis

        static func < (a: Key, b: Key) -> Bool {
            if a.rank != b.rank { return a.rank < b.rank }
            if a.relevance != b.relevance { return a.relevance > b.relevance }
            return a.createdAt < b.createdAt
        }
    }

    static func key(_ record: DeviceActivity, lifecycle: ActivityLifecycle) -> Key {
        let rank =
            switch lifecycle {
            case .active, .stale, .ended: 0
            case .pending: 1
            case .dismissed: 2
            }
        return Key(rank: rank, relevance: record.relevanceScore ?? 0, createdAt: record.createdAt)
    }

    static func lifecycleIndex(_ lifecycle: ActivityLifecycle) -> Int {
        ActivityLifecycle.allCases.firstIndex(of: lifecycle) ?? 0
    }

    /// The `limit` smallest keys seen, kept sorted; each offer is a binary search.
    struct Best {
        let limit: Int
        private var entries: [(key: Key, index: Dictionary<String, DeviceActivity>.Index)] = []

        init(limit: Int) { self.limit = max(0, limit) }

        var indices: [Dictionary<String, DeviceActivity>.Index] { entries.map(\.index) }

        mutating func offer(_ index: Dictionary<String, DeviceActivity>.Index, key: Key) {
            if entries.count == limit, let last = entries.last, !(key < last.key) { return }
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].key < key || entries[middle].key == key { low = middle + 1 } else { high = middle }
            }
            entries.insert((key, index), at: low)
            if entries.count > limit { entries.removeLast() }
        }
    }
}
