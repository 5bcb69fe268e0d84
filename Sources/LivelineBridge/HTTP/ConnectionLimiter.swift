import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Caps the bridge's open HTTP connections: one past ``limit`` is closed as it arrives, so a
/// sender that opens sockets without end runs out of them, not the bridge (whose store, files
/// and memory are shared by every other sender).
///
/// Refusals are never silent: each is counted (``refused``, and the metrics' callback), and a
/// warning with the numbers is logged, at most once a second.
///
/// **Concurrency.** Called from every event loop as connections open and close; the counts are
/// atomics.
public final class ConnectionLimiter: Sendable {
    /// The most connections open at once.
    public let limit: Int
    private let open = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)
    private let lastWarning = Atomic<Int64>(0)
    private let logger: Logger
    private let onRefused: @Sendable () -> Void

    /// A limiter admitting `limit` connections at once.
    ///
    /// - Parameters:
    ///   - limit: the most connections open at once (at least 1).
    ///   - logger: where a refused connection is logged, as a warning.
    ///   - onRefused: called for each connection closed over the limit (a metric).
    public init(limit: Int, logger: Logger, onRefused: @escaping @Sendable () -> Void = {}) {
        self.limit = max(1, limit)
        self.logger = logger
        self.onRefused = onRefused
    }

    /// Connections open now.
    public var openConnections: Int { open.load(ordering: .relaxed) }
    /// Connections closed over the limit so far.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }

    /// A handler for one new connection's pipeline (Hummingbird's `additionalChannelHandlers`).
    func makeHandler() -> any RemovableChannelHandler { Handler(limiter: self) }

    /// Counts a new connection in; false when it is one too many (it is counted as refused).
    func admit() -> Bool {
        let now = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard now > limit else { return true }
        open.wrappingSubtract(1, ordering: .relaxed)
        let refused = refusedCount.wrappingAdd(1, ordering: .relaxed).newValue
        onRefused()
        let second = BridgeClock.unixSeconds(BridgeClock.now())
        let last = lastWarning.load(ordering: .relaxed)
        if second > last, lastWarning.compareExchange(expected: last, desired: second, ordering: .relaxed).exchanged {
            logger.warning(
                "refused a connection: \(limit) are open, the configured max-connections",
                metadata: ["refused-so-far": "\(refused)"])
        }
        return false
    }

    func release() {
        open.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Admits its connection when added to the pipeline, or closes it; gives its place back when
    /// the connection closes. Reads pass through untouched (NIO wants every handler inbound or
    /// outbound; this one never unwraps what it passes on).
    private final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny
        let limiter: ConnectionLimiter
        var admitted = false

        init(limiter: ConnectionLimiter) { self.limiter = limiter }

        func handlerAdded(context: ChannelHandlerContext) {
            admitted = limiter.admit()
            if !admitted { context.close(promise: nil) }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            if admitted { limiter.release() }
            admitted = false
        }
    }
}
