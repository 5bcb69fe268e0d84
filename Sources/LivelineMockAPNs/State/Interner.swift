/// One stored copy of each equal value, shared by every activity or token that has it.
///
/// Values with heap storage (a content-state shape, a topic string) are the same for most of a
/// load test's activities: 100,000 football matches have a few shapes and one topic. Interning
/// makes them share one copy instead of one each. The table is bounded, so endless distinct
/// values (hostile or fuzzed input) only stop being shared; nothing grows without limit.
struct Interner<Value: Hashable> {
    private var known: Set<Value> = []
    /// Distinct values kept at most.
    let capacity: Int

    init(capacity: Int = 1_000) {
        self.capacity = capacity
    }

    /// The stored copy equal to `value`, or `value` itself (stored, while there is room).
    mutating func intern(_ value: Value) -> Value {
        if let index = known.firstIndex(of: value) { return known[index] }
        if known.count < capacity { known.insert(value) }
        return value
    }

    var count: Int { known.count }
}

extension Interner: Sendable where Value: Sendable {}
