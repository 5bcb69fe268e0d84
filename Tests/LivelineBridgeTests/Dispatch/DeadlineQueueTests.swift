import Liveline
import Testing
@testable import LivelineBridge

/// The dispatcher's wake-up hint: the earliest deadline first, past ones dropped, far or
/// excess ones left to the poll.
struct DeadlineQueueTests {
    let now: Millis = 1_800_000_000_000

    @Test func theEarliestDeadlineDecidesTheWaitAndPassedOnesAreDropped() {
        var queue = DeadlineQueue()
        for offset in [5000, 250, 12_000, 750, 3000] { queue.insert(now + Millis(offset), now: now) }
        #expect(queue.count == 5)
        #expect(queue.wait(now: now, poll: .milliseconds(100)) == .milliseconds(100), "the poll comes first")
        #expect(
            queue.wait(now: now, poll: .seconds(1)) == .milliseconds(251),
            "a millisecond after the deadline, so it is due")
        queue.removeAll(through: now + 1000)
        #expect(queue.count == 3)
        #expect(queue.earliest == now + 3000)
        queue.removeAll(through: now + 20_000)
        #expect(queue.isEmpty)
        #expect(queue.wait(now: now, poll: .milliseconds(100)) == .milliseconds(100))
    }

    @Test func pastFarAndExcessDeadlinesAreNotKept() {
        var queue = DeadlineQueue()
        queue.capacity = 3
        queue.insert(now - 1000, now: now)
        queue.insert(now, now: now)
        queue.insert(now + 3_600_000, now: now)
        #expect(queue.isEmpty)
        for offset in 1...5 { queue.insert(now + Millis(offset) * 1000, now: now) }
        #expect(queue.count == 3)
    }

    @Test func manyDeadlinesComeOutInOrder() {
        var queue = DeadlineQueue()
        var offsets = (1...500).map { Millis($0) * 50 }
        offsets.shuffle()
        for offset in offsets { queue.insert(now + offset, now: now) }
        var previous = now
        while let earliest = queue.earliest {
            #expect(earliest > previous)
            previous = earliest
            queue.removeAll(through: earliest)
        }
        #expect(previous == now + 25_000)
    }
}
