#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The clock a real-time run follows: what time it is, and a way to wait until a time.
///
/// `liveline play` uses ``WallClock``. Tests use a clock whose sleep returns at once after
/// moving its time, so real-time code runs in virtual time.
public protocol EngineClock: Sendable {
    /// UNIX milliseconds.
    func now() -> Millis
    /// Returns at or after `deadline` (UNIX milliseconds). Throws when the task is cancelled.
    func sleep(until deadline: Millis) async throws
}

/// The system's real-time clock.
public struct WallClock: EngineClock {
    public init() {}

    public func now() -> Millis {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Millis(spec.tv_sec) * 1000 + Millis(spec.tv_nsec) / 1_000_000
    }

    public func sleep(until deadline: Millis) async throws {
        let wait = deadline - now()
        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
    }
}
