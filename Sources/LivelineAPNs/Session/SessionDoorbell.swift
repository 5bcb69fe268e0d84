import LivelineCore
import NIOConcurrencyHelpers

/// Wakes a ``LiveSession``'s loop early: an external event moved a deadline, a target arrived,
/// or someone asked the session to stop.
///
/// The loop sleeps in a child task on the session's clock; ``ring()`` cancels that task, and a
/// ring that comes while the loop is awake makes its next sleep return at once. Rings carry no
/// data: the loop re-reads the session's state after every wake.
///
/// **Concurrency.** Rung from any thread (a signal handler, a delivery callback on an event
/// loop); the loop is the only waiter. One lock guards the sleeping task and the stop request.
final class SessionDoorbell: Sendable {
    private struct State {
        var rung = false
        var sleeping: Task<Void, Never>?
        var stop: StopReason?
    }

    private let state = NIOLockedValueBox(State())

    /// The stop someone asked for, if any.
    var stopRequest: StopReason? { state.withLockedValue { $0.stop } }

    /// Asks the loop to stop; the first reason wins.
    func requestStop(_ reason: StopReason) {
        state.withLockedValue { state in
            if state.stop == nil { state.stop = reason }
        }
        ring()
    }

    /// Wakes the loop now, or makes its next wait return at once.
    func ring() {
        let sleeping = state.withLockedValue { state -> Task<Void, Never>? in
            guard let task = state.sleeping else {
                state.rung = true
                return nil
            }
            state.sleeping = nil
            return task
        }
        sleeping?.cancel()
    }

    /// Sleeps until `deadline` on `clock` (forever when nil), or until rung.
    func wait(until deadline: Millis?, on clock: any EngineClock) async {
        let task = Task<Void, Never> {
            if let deadline {
                try? await clock.sleep(until: deadline)
            } else {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
        }
        let alreadyRung = state.withLockedValue { state -> Bool in
            if state.rung || state.stop != nil {
                state.rung = false
                return true
            }
            state.sleeping = task
            return false
        }
        if alreadyRung { task.cancel() }
        await task.value
        state.withLockedValue { state in
            state.sleeping = nil
            state.rung = false
        }
    }
}
