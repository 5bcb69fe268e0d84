import Foundation
import NIOConcurrencyHelpers

/// Small synchronization pieces the runner shares between its task, its engine threads and the
/// progress reader. Each is a lock around a few words, touched a few times a second at most.

/// A value set once (the first set wins) and read from anywhere.
final class AtomicMicros: Sendable {
    private let box = NIOLockedValueBox<Int64?>(nil)

    var value: Int64? { box.withLockedValue { $0 } }

    func setIfUnset(_ micros: Int64) {
        box.withLockedValue { if $0 == nil { $0 = micros } }
    }
}

/// The delivery recorder of a networked run, once it exists, for progress readers.
final class RecorderSlot: Sendable {
    private let box = NIOLockedValueBox<DeliveryMeasurements?>(nil)

    var value: DeliveryMeasurements? { box.withLockedValue { $0 } }

    func set(_ recorder: DeliveryMeasurements) { box.withLockedValue { $0 = recorder } }
}

/// A barrier for engine threads: each blocks in ``arriveAndWait()`` until all have arrived, so
/// the run's clock starts once every partition has built its engines. Returns that instant.
///
/// Blocks a thread (a `Thread` of the runner's own, never a task of the cooperative pool).
final class StartLine: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: Int
    private var began: Int64 = 0

    init(parties: Int) { waiting = parties }

    func arriveAndWait() -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        waiting -= 1
        if waiting == 0 {
            began = MicroClock.now()
            condition.broadcast()
        } else {
            while waiting > 0 { condition.wait() }
        }
        return began
    }
}

/// Activities whose in-flight push was answered, posted from NIO threads and taken in batches
/// by the runner's loop (virtual clock, network target).
final class FreedActivities: Sendable {
    private let box = NIOLockedValueBox<[Int]>([])

    func append(_ activity: Int) { box.withLockedValue { $0.append(activity) } }

    /// Moves the posted activities into `batch` (emptied first), leaving the list empty.
    func take(into batch: inout [Int]) {
        batch.removeAll(keepingCapacity: true)
        box.withLockedValue { swap(&$0, &batch) }
    }
}
