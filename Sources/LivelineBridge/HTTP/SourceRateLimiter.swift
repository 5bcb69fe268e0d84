import Synchronization

/// The token bucket behind one source's ``RateLimit``, shared by every request to that source.
///
/// The bucket starts full (`burst` requests) and refills at `perSecond`. A request takes one
/// token or is refused with the whole seconds until one is back, which becomes the 429's
/// `Retry-After`. Time comes from the caller as a monotonic instant, so tests drive it and a
/// wall-clock step never refills or drains it; an instant earlier than the last one is treated
/// as no time passing.
///
/// A `Mutex` rather than an actor: it is taken once per webhook on the ingest path, for a few
/// arithmetic operations, and must not add a hop or an allocation.
final class SourceRateLimiter: Sendable {
    /// What one request gets.
    enum Admission: Equatable {
        case admitted
        /// Over the limit: try again after this many whole seconds (at least 1).
        case limited(retryAfter: Int)
    }

    let limit: RateLimit
    private let bucket: Mutex<Bucket>

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant?
    }

    init(_ limit: RateLimit) {
        self.limit = limit
        bucket = Mutex(Bucket(tokens: Double(limit.burst), updated: nil))
    }

    /// Takes a token at `now`, or says how long until there is one.
    func admit(at now: ContinuousClock.Instant) -> Admission {
        let limit = self.limit
        return bucket.withLock { bucket in
            if let updated = bucket.updated, now > updated {
                let elapsed = BridgeClock.seconds(now - updated)
                bucket.tokens = min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond)
            }
            if bucket.updated.map({ now > $0 }) ?? true { bucket.updated = now }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return .admitted
            }
            let wait = (1 - bucket.tokens) / limit.perSecond
            return .limited(retryAfter: max(1, Int(wait.rounded(.up))))
        }
    }
}
