/// The last pushes to one token or channel, oldest first; a ring of fixed capacity.
///
/// Bounded so a long load test keeps memory flat. Unless it keeps every payload, a push the
/// device rendered loses its body once a newer push arrives: the last body and every body the
/// device did not render (or APNs refused) are what a person debugging looks at, and the bodies
/// are most of a record's memory.
struct PushHistory {
    private var items: [PushRecord] = []
    private var next = 0
    let capacity: Int
    let keepsEveryPayload: Bool

    init(capacity: Int, keepsEveryPayload: Bool = false) {
        self.capacity = max(1, capacity)
        self.keepsEveryPayload = keepsEveryPayload
    }

    mutating func append(_ record: PushRecord) {
        if !keepsEveryPayload, !items.isEmpty {
            let newest = items.count < capacity ? items.count - 1 : (next + capacity - 1) % capacity
            if items[newest].wasRendered { items[newest].payload = nil }
        }
        if items.count < capacity {
            items.append(record)
        } else {
            items[next] = record
            next = (next + 1) % capacity
        }
    }

    var records: [PushRecord] {
        Array(items[next...] + items[..<next])
    }
}

extension PushRecord {
    /// APNs accepted it and every activity it reached showed it.
    var wasRendered: Bool {
        status == 200 && !deliveries.isEmpty && deliveries.allSatisfy { $0.outcome == .rendered }
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
