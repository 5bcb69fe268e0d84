import Synchronization

/// A clock that only moves when told to: real-time code runs in virtual time under it.
///
/// ``sleep(until:)`` suspends until ``advance(by:)`` or ``set(_:)`` moves the clock to the
/// deadline, so a test steps a live session (or the mock's device lifecycles) through hours of
/// story in no time, and knows exactly what was due at each step. A cancelled sleeper throws
/// `CancellationError` at once.
///
/// **Concurrency.** Any thread may read or move it; one mutex guards the instant and the
/// sleepers, and continuations are resumed after it is released.
public final class ManualClock: EngineClock, Sendable {
    private struct Sleeper {
        var id: UInt64
        var deadline: Millis
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Millis
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var cancelled: Set<UInt64> = []
    }

    private let state: Mutex<State>

    /// A clock standing at `start` (UNIX milliseconds).
    public init(start: Millis) {
        state = Mutex(State(now: start))
    }

    public func now() -> Millis { state.withLock { $0.now } }

    /// Moves the clock forward by `duration`, waking every sleeper now due.
    public func advance(by duration: Duration) {
        wake { $0.now += max(0, duration.millis) }
    }

    /// Sets the clock to `instant` (never backwards), waking every sleeper now due.
    public func set(_ instant: Millis) {
        wake { $0.now = max($0.now, instant) }
    }

    /// How many tasks are sleeping on the clock: a test waits for the code under test to go
    /// to sleep before it moves the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until, if any.
    public var earliestDeadline: Millis? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(until deadline: Millis) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        state.withLock { _ = $0.cancelled.remove(id) }
    }

    private func wake(_ move: (inout State) -> Void) {
        let due = state.withLock { state -> [Sleeper] in
            move(&state)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
