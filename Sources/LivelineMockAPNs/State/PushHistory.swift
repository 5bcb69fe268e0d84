/// The last pushes to one token or channel, oldest first; a ring of fixed capacity.
///
/// Bounded so a long load test keeps memory flat, and compact (``HistoryEntry``) so a million
/// tokens fit. Unless it keeps every payload, a push's body is dropped once a newer push
/// arrives (or at once, without `keepsLastPayload`), except where the body explains something (``HistoryEntry/bodyExplainsSomething``):
/// the last body and the ones APNs refused for their content or a device did not render are
/// what a person debugging looks at, and bodies are most of an answered push's memory.
struct PushHistory {
    private var items: [HistoryEntry] = []
    private var next = 0
    let capacity: Int
    let keepsEveryPayload: Bool
    let keepsLastPayload: Bool

    init(capacity: Int, keepsEveryPayload: Bool = false, keepsLastPayload: Bool = true) {
        self.capacity = max(1, capacity)
        self.keepsEveryPayload = keepsEveryPayload
        self.keepsLastPayload = keepsLastPayload
    }

    mutating func append(_ record: AnsweredPush, key: String) {
        if !keepsEveryPayload, !items.isEmpty {
            let newest = items.count < capacity ? items.count - 1 : (next + capacity - 1) % capacity
            Self.dropUnneededPayload(of: &items[newest])
        }
        var entry = HistoryEntry(record, key: key)
        if !keepsEveryPayload, !keepsLastPayload { Self.dropUnneededPayload(of: &entry) }
        // Moved in, not copied: an entry holds the body and the delivery's reasons.
        if items.count < capacity {
            items.append(consume entry)
        } else {
            items[next] = consume entry
            next = (next + 1) % capacity
        }
    }

    /// Drops a body that explains nothing (reached in place: reading the entry through the
    /// array copied it).
    private static func dropUnneededPayload(of entry: inout HistoryEntry) {
        if entry.payload != nil, !entry.bodyExplainsSomething { entry.payload = nil }
    }

    /// The pushes, oldest first, as answered pushes of `key`'s token or channel.
    func records(key: String) -> [AnsweredPush] {
        (items[next...] + items[..<next]).map { $0.record(key: key) }
    }
}

/// The instants of a token's recent pushes, for the TooManyRequests fault: a sliding minute.
struct RecentPushes {
    private var instants: [Int64] = []
    private var next = 0

    /// Records a push at `now` unless `limit` pushes already happened within `window` before it.
    /// Returns whether the push is within the limit.
    mutating func admit(now: Int64, limit: Int, window: Int64) -> Bool {
        guard limit > 0 else { return false }
        if instants.count < limit {
            instants.append(now)
            return true
        }
        if instants.count > limit {
            instants = Array(instants.suffix(limit))
            next = 0
        }
        let oldest = instants[next]
        guard now - oldest >= window else { return false }
        instants[next] = now
        next = (next + 1) % limit
        return true
    }
}
