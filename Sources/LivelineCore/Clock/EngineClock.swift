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
    /// The clock of the machine it runs on.
    public init() {}

    public func now() -> Millis {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Millis(spec.tv_sec) * 1000 + Millis(spec.tv_nsec) / 1_000_000
    }

    /// Sleeps to the nanosecond, with zero tolerance: the default tolerance lets the system
    /// coalesce wake-ups, which showed as milliseconds of lateness in the real-time benchmark.
    public func sleep(until deadline: Millis) async throws {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let nowNanos = Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
        let wait = deadline * 1_000_000 - nowNanos
        if wait > 0 { try await Task.sleep(for: .nanoseconds(wait), tolerance: .zero) }
    }
}
