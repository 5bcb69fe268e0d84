import Foundation
import Liveline
import LivelineAPNs
import Synchronization

/// The outbox sender's sends in flight, each waiting for its answer until the drain's cutoff:
/// once ``fire()`` is called, every send still waiting (and every later one) gives up at once
/// with nil, so a stop never waits on APNs past its deadline. The request itself may still be
/// answered; its push is given back unrecorded and the next instance sends it again, the same
/// bytes with the same `aps.timestamp`, which a device that already has it drops as not newer.
final class SendCutoff: Sendable {
    private typealias Waiter = CheckedContinuation<Result<APNsResponse, any Error>?, Never>

    private struct State {
        var fired = false
        var next = 0
        var waiting: [Int: Waiter] = [:]
    }

    private let state = Mutex(State())

    /// Sends `request` and returns its answer or transport failure, or nil when the cutoff
    /// came first.
    func send(_ request: APNsRequest, with client: APNsClient) async -> Result<APNsResponse, any Error>? {
        await withCheckedContinuation { (continuation: Waiter) in
            let id: Int? = state.withLock { state in
                guard !state.fired else { return nil }
                state.next += 1
                state.waiting[state.next] = continuation
                return state.next
            }
            guard let id else {
                continuation.resume(returning: nil)
                return
            }
            client.send(request, flush: true) { result in self.answered(id, with: result) }
        }
    }

    private func answered(_ id: Int, with result: Result<APNsResponse, any Error>) {
        let waiter = state.withLock { $0.waiting.removeValue(forKey: id) }
        waiter?.resume(returning: result)
    }

    /// Whether ``fire()`` was called.
    var hasFired: Bool { state.withLock { $0.fired } }

    /// Fires at `instant`: at once when it is nil or past, else from a task that sleeps until it.
    func fire(at instant: Millis?) {
        let now = BridgeClock.now()
        guard let instant, instant > now else {
            fire()
            return
        }
        Task {
            try? await Task.sleep(for: .milliseconds(instant - now))
            self.fire()
        }
    }

    /// Gives up on every send in flight, and on every later one.
    func fire() {
        let waiters = state.withLock { state -> [Waiter] in
            state.fired = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}
