import NIOConcurrencyHelpers

/// Lets the runner wait until answers have come in: back-pressure for the virtual clock.
///
/// The runner reads ``generation``, checks the number in flight, and if it is too high waits
/// for the generation to move past what it read, so a signal between the check and the wait is
/// never missed. Delivery events call ``signal()`` from NIO threads.
///
/// **Concurrency.** One waiter at a time (the runner's task); a lock guards the generation and
/// the continuation, held for a few instructions.
final class ReleaseGate: Sendable {
    private struct State {
        var generation = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let box = NIOLockedValueBox(State())

    var generation: Int { box.withLockedValue { $0.generation } }

    func signal() {
        let waiter = box.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.generation &+= 1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the generation differs from `seen`.
    func wait(since seen: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = box.withLockedValue { state -> Bool in
                if state.generation != seen { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
