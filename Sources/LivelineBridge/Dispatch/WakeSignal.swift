import Synchronization

/// Wakes a worker loop early: the HTTP side and the streams ring the dispatcher's when an event
/// is stored or an activity registered, and the dispatcher rings the outbox and fan-out
/// senders' when a step wrote pushes, so none waits for its next poll. Rings while nobody
/// waits are kept (one is enough), so a ring is never lost between two waits.
///
/// A `Mutex` rather than an actor: `ring()` is called on every webhook and must not allocate
/// a task.
public final class WakeSignal: Sendable {
    private struct State {
        var rung = false
        var generation = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// A signal nobody has rung yet.
    public init() {}

    /// Wakes the waiter now, or the next one to wait.
    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when rung, or after `timeout`, or at once if a ring came since the last wait.
    /// One waiter at a time.
    public func wait(upTo timeout: Duration) async {
        let generation: Int? = state.withLock { state in
            if state.rung {
                state.rung = false
                return nil
            }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let rungMeanwhile = state.withLock { state -> Bool in
                if state.rung {
                    state.rung = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if rungMeanwhile {
                continuation.resume()
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                let expired = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard state.generation == generation, let waiter = state.waiter else { return nil }
                    state.waiter = nil
                    return waiter
                }
                expired?.resume()
            }
        }
    }
}
