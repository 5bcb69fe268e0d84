import Testing
@testable import LivelineBridge

/// A batch of a fixed row count could hold the store's writer for 2 ms on one machine and
/// 40 ms on a loaded one, and every webhook behind it waits that long. The sizer keeps batches
/// near their time, leaves the writers most of a round, and never shrinks batches so far that
/// pruning falls behind.
@Suite struct PruneBatchSizerTests {
    static let policy = RetentionPolicy(batch: 500, batchTime: .milliseconds(4), pause: .milliseconds(10), share: 0.25)

    @Test func batchesGrowWhileQuickAndHalveWhenSlow() {
        var sizer = PruneBatchSizer(policy: Self.policy)
        #expect(sizer.size == 32)
        var sizes: [Int] = []
        for _ in 0..<6 {
            _ = sizer.pause(after: .milliseconds(1))
            sizes.append(sizer.size)
        }
        #expect(sizes == [64, 128, 256, 500, 500, 500])
        _ = sizer.pause(after: .milliseconds(9))
        #expect(sizer.size == 250)
        // Between half the time and the time: kept.
        _ = sizer.pause(after: .milliseconds(3))
        #expect(sizer.size == 250)
    }

    @Test func aSlowCommitCannotShrinkBatchesBelowTheFloor() {
        var sizer = PruneBatchSizer(policy: Self.policy)
        for _ in 0..<10 { _ = sizer.pause(after: .milliseconds(40)) }
        #expect(sizer.size == PruneBatchSizer.floor)
        var small = PruneBatchSizer(policy: RetentionPolicy(batch: 5))
        _ = small.pause(after: .seconds(1))
        #expect(small.size == 5)
    }

    /// With a share of a quarter, a batch is followed by a pause three times as long, and never
    /// by less than the policy's pause.
    @Test func pausesLeaveTheWritersTheirShare() {
        var sizer = PruneBatchSizer(policy: Self.policy)
        #expect(sizer.pause(after: .milliseconds(8)) == .milliseconds(24))
        #expect(sizer.pause(after: .milliseconds(1)) == .milliseconds(10))
    }
}
