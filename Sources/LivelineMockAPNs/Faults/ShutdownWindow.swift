import Liveline

/// A period in which the mock answers every push `503 Shutdown` and closes the connection.
///
/// Times count from the moment the fault plan took effect (server start, or `POST /faults`).
public struct ShutdownWindow: Sendable, Hashable, CustomStringConvertible {
    /// When the first window opens.
    public var after: Duration
    /// How long each window lasts.
    public var duration: Duration
    /// The window repeats with this period, when set.
    public var every: Duration?

    public init(after: Duration, duration: Duration, every: Duration? = nil) {
        self.after = after
        self.duration = duration
        self.every = every
    }

    /// Parses `AFTER+FOR` or `AFTER+FOR/EVERY`, e.g. `1m+30s` or `1m+30s/10m`.
    public init?(_ text: String) {
        let periodic = text.split(separator: "/", maxSplits: 1).map(String.init)
        let parts = periodic[0].split(separator: "+", maxSplits: 1).map(String.init)
        guard parts.count == 2, let after = DurationText.parse(parts[0]), let duration = DurationText.parse(parts[1])
        else {
            return nil
        }
        var every: Duration?
        if periodic.count == 2 {
            guard let value = DurationText.parse(periodic[1]), value > duration else { return nil }
            every = .milliseconds(value)
        }
        self.init(after: .milliseconds(after), duration: .milliseconds(duration), every: every)
    }

    public var description: String {
        let base = "\(DurationText.format(after.millis))+\(DurationText.format(duration.millis))"
        return every.map { "\(base)/\(DurationText.format($0.millis))" } ?? base
    }

    /// Whether `elapsed` milliseconds after the plan started falls inside a window.
    func contains(elapsed: Millis) -> Bool {
        let after = after.millis, duration = duration.millis
        guard elapsed >= after else { return false }
        let offset = elapsed - after
        if let every { return offset % every.millis < duration }
        return offset < duration
    }
}
