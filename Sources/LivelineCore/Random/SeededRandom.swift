/// Deterministic randomness for jitter, `chance`, `random` and `pick`.
///
/// Every draw is a hash of the seed and what is being drawn for (the beat, the occurrence, the
/// call site), never a stream: an activity's draws do not depend on the order the scheduler
/// happens to visit activities in, so a run replays identically and load-test copies differ.
public enum SeededRandom {
    /// SplitMix64's finalizer: a fast, well-mixed 64-bit hash step.
    @inlinable
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A hash of a seed and up to two further values.
    @inlinable
    public static func hash(_ seed: UInt64, _ a: UInt64, _ b: UInt64 = 0) -> UInt64 {
        mix(mix(mix(seed) ^ a) ^ b)
    }

    /// A number in `0..<1` from a hash.
    @inlinable
    public static func unit(_ hash: UInt64) -> Double {
        Double(hash >> 11) * 0x1.0p-53
    }

    /// The seed of one activity copy: the scenario seed, the activity's place in the file and its
    /// copy number in a load test.
    @inlinable
    public static func activitySeed(scenario: UInt64, activity: Int, copy: Int) -> UInt64 {
        hash(scenario, UInt64(truncatingIfNeeded: activity), UInt64(truncatingIfNeeded: copy))
    }
}
