import Logging
import NIOConcurrencyHelpers
import NIOCore

extension APNsClient {
    /// Opens a connection now, before anything is sent, so that a run learns at its start, at
    /// any speed, whether APNs can be reached at all: a story whose first push is minutes away
    /// would otherwise find out then, and then give up push by push.
    ///
    /// A failed attempt is tried again after 0.25 s, 0.5 s, 1 s, 2 s, then every 4 s, until
    /// `patience` has passed since the first. Returns once a connection is up (it stays open for
    /// the pushes); throws ``APNsUnreachable`` when none came up in time, or at once when the
    /// failure is one that trying again cannot mend (an untrusted certificate, a server that
    /// does not speak HTTP/2: ``APNsTransportError/isSetupError``).
    public func connect(patience: Duration = .seconds(15)) async throws(APNsUnreachable) {
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started + patience
        var attempts = 0
        var delay = Duration.milliseconds(250)
        // What an attempt that ended with an answer said (`connection refused`…): an attempt
        // the patience cut short said nothing, and must not hide it.
        var answered: String?
        while true {
            attempts += 1
            let cause: String
            switch await attemptConnection(until: deadline, on: clock) {
            case .connected:
                return
            case .failed(let error as APNsTransportError) where error.isSetupError:
                throw APNsUnreachable(endpoint: configuration.endpoint, cause: error, attempts: attempts, waited: nil)
            case .failed(let error):
                cause = "\(error)"
                answered = cause
            case .outOfTime:
                cause =
                    answered
                    ?? "\(APNsTransportError.connectFailed(host: "\(configuration.endpoint.host):\(configuration.endpoint.port)", cause: "no connection in time"))"
            }
            if clock.now + delay >= deadline {
                throw APNsUnreachable(
                    endpoint: configuration.endpoint, cause: cause, attempts: attempts,
                    waited: started.duration(to: clock.now))
            }
            logger.debug(
                "APNs not reachable yet; connecting again",
                metadata: ["attempt": "\(attempts)", "cause": .string(cause), "retry-in": "\(delay)"])
            try? await clock.sleep(for: delay)
            delay = min(delay * 2, .seconds(4))
        }
    }

    /// How one connection attempt ended.
    private enum Attempt: Sendable {
        case connected
        /// The attempt ended with this failure.
        case failed(any Error)
        /// `deadline` came first.
        case outOfTime
    }

    /// One attempt, until the connection is ready for requests (TLS and ALPN done), given up
    /// (not cancelled: the pool keeps trying in the background) at
    /// `deadline`, so a host that drops the packets cannot hold the caller for NIO's own
    /// connect timeout past it.
    private func attemptConnection(
        until deadline: ContinuousClock.Instant, on clock: ContinuousClock
    ) async -> Attempt {
        let future = pool.connection().flatMap { $0.ready }
        let remaining = clock.now.duration(to: deadline)
        return await withCheckedContinuation { continuation in
            let done = NIOLockedValueBox(false)
            let finish: @Sendable (Attempt) -> Void = { result in
                guard
                    done.withLockedValue({ done in
                        defer { done = true }; return !done
                    })
                else { return }
                continuation.resume(returning: result)
            }
            let timer = future.eventLoop.scheduleTask(in: TimeAmount(max(remaining, .zero))) {
                finish(.outOfTime)
            }
            future.whenComplete { result in
                timer.cancel()
                switch result {
                case .success: finish(.connected)
                case .failure(let error): finish(.failed(error))
                }
            }
        }
    }
}

/// APNs (or the server given instead) could not be reached before the first push.
public struct APNsUnreachable: Error, Sendable, CustomStringConvertible {
    /// Where the client tried to connect.
    public var endpoint: APNsEndpoint
    /// The last attempt's failure, in words.
    public var cause: String
    /// The failure, when it is one that trying again cannot mend (a certificate, ALPN).
    public var setupError: APNsTransportError?
    /// How many connection attempts were made.
    public var attempts: Int
    /// How long the attempts went on; nil when the first failure ended them.
    public var waited: Duration?

    init(endpoint: APNsEndpoint, cause: String, attempts: Int, waited: Duration?) {
        self.endpoint = endpoint
        self.cause = cause
        self.attempts = attempts
        self.waited = waited
    }

    init(endpoint: APNsEndpoint, cause: APNsTransportError, attempts: Int, waited: Duration?) {
        self.init(endpoint: endpoint, cause: cause.description, attempts: attempts, waited: waited)
        setupError = cause
    }

    /// What failed, how often, for how long: `connection refused by 127.0.0.1:2197 (7 attempts
    /// in 12 s)`.
    public var problem: String {
        guard let waited else { return cause }
        let seconds = Int((Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18).rounded())
        return "\(cause) (\(attempts) \(attempts == 1 ? "attempt" : "attempts") in \(seconds) s)"
    }

    public var description: String { setupError == nil ? "cannot reach \(endpoint): \(problem)" : cause }
}
