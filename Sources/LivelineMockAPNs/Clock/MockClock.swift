import Liveline
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The mock's idea of "now", in UNIX milliseconds.
///
/// The device side computes lifecycles (stale, ended, dismissed), budgets, JWT ages and fault
/// windows against this clock. Tests inject a ``ManualClock`` and move it forward to run hours
/// of lifecycle in no time; real use takes the ``WallClock``. Injected latency is the one thing
/// that always waits in real time, because it delays bytes on a socket.
public protocol MockClock: Sendable {
    /// The current instant, in UNIX milliseconds.
    func now() -> Millis
}

/// The system's real-time clock.
public struct WallClock: MockClock {
    public init() {}

    public func now() -> Millis {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Millis(spec.tv_sec) * 1000 + Millis(spec.tv_nsec) / 1_000_000
    }
}

/// A clock that only moves when told to, for tests and virtual-time runs.
///
/// Thread-safe: readers on event loops and a test moving it forward may race; a lock keeps the
/// value consistent.
public final class ManualClock: MockClock {
    private let instant: NIOLockedValueBox<Millis>

    /// A clock standing at `start` (UNIX milliseconds).
    public init(start: Millis) {
        instant = NIOLockedValueBox(start)
    }

    public func now() -> Millis { instant.withLockedValue { $0 } }

    /// Moves the clock forward by `duration` milliseconds.
    public func advance(by duration: Millis) {
        instant.withLockedValue { $0 += duration }
    }

    /// Sets the clock to `instant`.
    public func set(_ newInstant: Millis) {
        instant.withLockedValue { $0 = newInstant }
    }
}
