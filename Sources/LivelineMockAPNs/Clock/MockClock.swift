import Liveline

/// The mock's idea of "now", in UNIX milliseconds.
///
/// The device side computes lifecycles (stale, ended, dismissed), budgets, JWT ages and fault
/// windows against this clock. Tests inject Liveline's ``ManualClock`` and move it forward to
/// run hours of lifecycle in no time; real use takes Liveline's ``WallClock``. Injected latency
/// is the one thing that always waits in real time, because it delays bytes on a socket.
public protocol MockClock: Sendable {
    /// The current instant, in UNIX milliseconds.
    func now() -> Millis
}

extension WallClock: MockClock {}

extension ManualClock: MockClock {}
