/// How many rows the next prune batch takes, and how long to pause before it, from how long the
/// last one took: batches aim at the policy's `batchTime`, and deleting takes at most its
/// `share` of a round.
///
/// A batch that ran over its time halves the next; one that took less than half of it doubles
/// the next, up to the policy's `batch`. The size never drops below ``floor`` rows, so a
/// commit's fixed cost (an fsync on a slow disk can take longer than `batchTime` alone) cannot
/// shrink the batches until pruning falls behind the rate rows arrive at.
struct PruneBatchSizer: Sendable, Hashable {
    /// The fewest rows a batch takes (or the policy's `batch`, if that is smaller).
    static let floor = 32

    let policy: RetentionPolicy
    /// The next batch's rows.
    private(set) var size: Int

    init(policy: RetentionPolicy) {
        self.policy = policy
        size = min(policy.batch, Self.floor)
    }

    /// After a batch that took `elapsed`: the pause before the next, and the next's ``size``.
    mutating func pause(after elapsed: Duration) -> Duration {
        let least = min(policy.batch, Self.floor)
        if elapsed > policy.batchTime {
            size = max(least, size / 2)
        } else if elapsed * 2 < policy.batchTime {
            size = min(policy.batch, size * 2)
        }
        let yielding = elapsed * ((1 - policy.share) / policy.share)
        return max(policy.pause, yielding)
    }
}
