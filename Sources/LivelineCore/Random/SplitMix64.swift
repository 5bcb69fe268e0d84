/// A small, fast, seedable random number generator: SplitMix64, a stream of
/// ``SeededRandom/mix(_:)`` over a counter.
///
/// For the places that want a stream rather than a hash of what is drawn for: the mock's fault
/// rolls (one generator per connection, so no shared state and a seeded run replays the same
/// faults per connection) and the tests' generated inputs.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    /// A generator whose stream is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    @inlinable
    public mutating func next() -> UInt64 {
        let value = SeededRandom.mix(state)
        state &+= 0x9E37_79B9_7F4A_7C15
        return value
    }

    /// A uniform `Double` in `0..<1`.
    public mutating func nextUnit() -> Double {
        SeededRandom.unit(next())
    }

    /// A number in `0..<bound` (by remainder: fine for small bounds, not exactly uniform).
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
