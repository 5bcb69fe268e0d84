import LivelineCore

/// How long to wait before sending again after a retryable failure: exponential backoff with
/// full jitter (a random wait between zero and the exponential bound), so that many activities
/// failing together do not retry together.
public struct RetryPolicy: Sendable {
    /// The bound for the first retry.
    public var base: Duration = .milliseconds(100)
    /// The largest bound.
    public var cap: Duration = .seconds(10)
    /// Give up after this many attempts in all.
    public var maxAttempts = 12

    /// A policy with the bounds given; with the defaults, the waits add up to at most about a minute.
    public init(base: Duration = .milliseconds(100), cap: Duration = .seconds(10), maxAttempts: Int = 12) {
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
    }

    /// The wait before attempt `attempt` (2 is the first retry), given a random number in 0..<1.
    public func delay(beforeAttempt attempt: Int, random: Double) -> Millis {
        let exponent = min(30, max(0, attempt - 2))
        let bound = min(cap.millis, base.millis << exponent)
        return Millis(Double(bound) * random)
    }
}
