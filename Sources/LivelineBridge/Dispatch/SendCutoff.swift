import Foundation
import Liveline
import LivelineAPNs
import Synchronization

/// The senders' pushes in flight, each waiting for its answer until the drain's cutoff:
/// once ``fire()`` is called, every send still waiting (and every later one) gives up at once
/// with nil, so a stop never waits on APNs past its deadline. The request itself may still be
/// answered; its push is given back unrecorded and the next instance sends it again, the same
/// bytes with the same `aps.timestamp`, which a device that already has it drops as not newer.
final class SendCutoff: Sendable {
    private struct State {
        var fired = false
        var next = 0
        var batches: [Int: Batch] = [:]
    }

    private let state = Mutex(State())

    /// Sends every request through its client at once (each flushed as it goes, so a client
    /// spreads them over its connections) and returns their answers or transport failures in
    /// order, nil for each the cutoff came before. One waiter for the whole batch: no task,
    /// continuation or table entry per request, which a fan-out of thousands at a time paid for
    /// every push.
    func send(_ requests: [(request: APNsRequest, client: APNsClient)]) async -> [Result<APNsResponse, any Error>?] {
        guard !requests.isEmpty else { return [] }
        let batch = Batch(count: requests.count)
        return await withCheckedContinuation { (continuation: Batch.Waiter) in
            batch.wait(with: continuation)
            let id: Int? = state.withLock { state in
                guard !state.fired else { return nil }
                state.next += 1
                state.batches[state.next] = batch
                return state.next
            }
            guard let id else {
                batch.cutOff()
                return
            }
            for (index, (request, client)) in requests.enumerated() {
                client.send(request, flush: true) { result in
                    guard batch.answered(index, with: result) else { return }
                    self.state.withLock { _ = $0.batches.removeValue(forKey: id) }
                }
            }
        }
    }

    /// The answers of one ``send(_:)``, until the last or the cutoff.
    private final class Batch: Sendable {
        typealias Waiter = CheckedContinuation<[Result<APNsResponse, any Error>?], Never>

        private struct State {
            var answers: [Result<APNsResponse, any Error>?]
            var unanswered: Int
            var waiter: Waiter?
        }

        private let state: Mutex<State>

        init(count: Int) {
            state = Mutex(State(answers: Array(repeating: nil, count: count), unanswered: count, waiter: nil))
        }

        func wait(with waiter: Waiter) {
            state.withLock { $0.waiter = waiter }
        }

        /// Records the answer of request `index`; true when it was the last (the caller waits
        /// no more). An answer after the cutoff is dropped.
        func answered(_ index: Int, with result: Result<APNsResponse, any Error>) -> Bool {
            let finished = state.withLock { state -> (Waiter, [Result<APNsResponse, any Error>?])? in
                guard state.waiter != nil else { return nil }
                state.answers[index] = result
                state.unanswered -= 1
                guard state.unanswered == 0, let waiter = state.waiter.take() else { return nil }
                return (waiter, Self.takeAnswers(&state))
            }
            guard let finished else { return false }
            finished.0.resume(returning: finished.1)
            return true
        }

        /// Ends the wait with the answers come so far (nil for the others).
        func cutOff() {
            let finished = state.withLock { state -> (Waiter, [Result<APNsResponse, any Error>?])? in
                guard let waiter = state.waiter.take() else { return nil }
                return (waiter, Self.takeAnswers(&state))
            }
            if let finished { finished.0.resume(returning: finished.1) }
        }

        private static func takeAnswers(_ state: inout State) -> [Result<APNsResponse, any Error>?] {
            var answers: [Result<APNsResponse, any Error>?] = []
            swap(&answers, &state.answers)
            return answers
        }
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
        let batches = state.withLock { state -> [Batch] in
            state.fired = true
            defer { state.batches = [:] }
            return Array(state.batches.values)
        }
        for batch in batches { batch.cutOff() }
    }
}
