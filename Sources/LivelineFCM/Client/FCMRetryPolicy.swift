/// How ``FCMClient`` tries again when FCM says a message may succeed later (`UNAVAILABLE`,
/// `INTERNAL`, `QUOTA_EXCEEDED`, or no answer at all).
///
/// The pause before attempt *n + 1* is the exponential back-off `initialBackoff × 2ⁿ⁻¹`
/// (at most `maxBackoff`), drawn between half and all of it so that many senders refused at
/// once do not return at once, and never shorter than FCM's `Retry-After`: FCM asks senders
/// over quota to wait at least that long.
public struct FCMRetryPolicy: Sendable {
    /// Attempts per message, the first included.
    public var maxAttempts: Int
    public var initialBackoff: Duration
    public var maxBackoff: Duration

    public init(maxAttempts: Int = 5, initialBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(60)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }

    /// The pause after the failed attempt number `attempt` (1 for the first), given FCM's
    /// `Retry-After` in seconds if it sent one; `unit` in 0...1 places it in the jitter range.
    public func pause(after attempt: Int, retryAfter: Int64?, unit: Double) -> Duration {
        var backoff = initialBackoff
        for _ in 1..<max(1, attempt) where backoff < maxBackoff { backoff *= 2 }
        backoff = min(backoff, maxBackoff)
        let jittered = backoff * (0.5 + 0.5 * min(max(unit, 0), 1))
        guard let retryAfter, retryAfter > 0 else { return jittered }
        return max(jittered, .seconds(retryAfter))
    }
}
