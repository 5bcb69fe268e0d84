import Testing

@testable import LivelineLoad

/// ``ReleaseQueue``: an activity's items go in order, one out at a time, the oldest free one
/// first, across the compaction of its ready list.
@Suite struct ReleaseQueueTests {
    @Test func anActivitysItemsWaitForTheOneItHasOutAndGoInOrder() {
        var queue = ReleaseQueue<String>()
        var busy = [Bool](repeating: false, count: 3)
        queue.add("a1", activity: 0, busy: &busy)
        queue.add("a2", activity: 0, busy: &busy)
        queue.add("b1", activity: 1, busy: &busy)
        queue.add("a3", activity: 0, busy: &busy)
        #expect(busy == [true, true, false])
        var out: [String?] = [queue.next(), queue.next(), queue.next()]
        #expect(out == ["a1", "b1", nil])
        #expect(!queue.hasReady)
        var moved = [queue.advance(1), queue.advance(0)]
        out = [queue.next()]
        moved.append(queue.advance(0))
        out.append(queue.next())
        moved += [queue.advance(0), queue.advance(2)]
        #expect(moved == [false, true, true, false, false])
        #expect(out == ["a2", "a3"])
    }

    @Test func thousandsOfItemsComeOutInTheOrderTheyWereFreed() {
        var queue = ReleaseQueue<Int>()
        var busy = [Bool](repeating: false, count: 10_000)
        var batch = Array(0..<20_000)
        let queued = queue.add(movingAll: &batch, activity: { $0 % 10_000 }, busy: &busy)
        #expect(queued == 20_000 && batch.isEmpty)
        var out: [Int] = []
        while let item = queue.next() {
            out.append(item)
            if item < 10_000 {
                let moved = queue.advance(item)
                #expect(moved)
            }
        }
        #expect(out == Array(0..<20_000))
    }
}
