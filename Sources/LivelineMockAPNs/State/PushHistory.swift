/// The last pushes to one token or channel, oldest first; a ring of fixed capacity.
///
/// Bounded so a long load test keeps memory flat.
struct PushHistory {
    private var items: [PushRecord] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    mutating func append(_ record: PushRecord) {
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
