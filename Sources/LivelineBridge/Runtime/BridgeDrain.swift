import Liveline
import Synchronization

/// A graceful stop's clock and its one fact, "draining since": from the moment SIGTERM (or
/// ``BridgeService/shutdown()``) begins the drain until the process exits, the HTTP server
/// answers webhooks 503 with `Retry-After` and `/readyz` says not ready, the dispatcher
/// finishes its pass, and the outbox and fan-out senders wait for their pushes in flight until
/// ``deadline``, then give back whatever is unanswered so the next instance takes it at once.
public final class BridgeDrain: Sendable {
    /// The longest a drain takes, from its start to the last claim given back (`drain-timeout`).
    public let timeout: Duration
    private let began = Mutex<Millis?>(nil)

    /// A drain that gives up on what is in flight `timeout` after it begins.
    public init(timeout: Duration = BridgeConfiguration.standardDrainTimeout) {
        self.timeout = timeout
    }

    /// Starts the drain at `now` (a second call keeps the first start).
    public func begin(now: Millis = BridgeClock.now()) {
        began.withLock { began in
            if began == nil { began = now }
        }
    }

    /// Whether the drain has begun.
    public var isDraining: Bool { began.withLock { $0 != nil } }

    /// When the drain must be over; nil before it begins.
    public var deadline: Millis? {
        began.withLock { began in began.map { $0 + timeout.millis } }
    }

    /// When the sender stops waiting for answers: a little before ``deadline``, leaving time to
    /// record the answers that came and give back the rest (a quarter of the timeout, at most 2 s).
    public var sendCutoff: Millis? {
        deadline.map { $0 - min(2000, timeout.millis / 4) }
    }

    /// Whole seconds a sender should wait before trying again: the rest of the drain, at least 1.
    public func retryAfter(now: Millis = BridgeClock.now()) -> Int {
        guard let deadline else { return 1 }
        return max(1, Int((BridgeClock.seconds(from: now, to: deadline)).rounded(.up)))
    }
}
