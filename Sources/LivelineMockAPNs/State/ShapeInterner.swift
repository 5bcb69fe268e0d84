/// One stored copy of each content-state shape, shared by every activity that has it.
///
/// A shape is a small tree of arrays and boxes (about 500 bytes for a football score); a load
/// test's 100,000 activities of one scenario all have the same few. Interning makes them share
/// one copy. The table is bounded, so activities with endless distinct shapes (hostile or
/// fuzzed input) only stop sharing; nothing grows without limit.
struct ShapeInterner {
    private var known: Set<ContentShape> = []
    /// Distinct shapes kept at most.
    let capacity: Int

    init(capacity: Int = 1_000) {
        self.capacity = capacity
    }

    /// The stored copy equal to `shape`, or `shape` itself (stored, while there is room).
    mutating func intern(_ shape: ContentShape) -> ContentShape {
        if let index = known.firstIndex(of: shape) { return known[index] }
        if known.count < capacity { known.insert(shape) }
        return shape
    }

    var count: Int { known.count }
}
