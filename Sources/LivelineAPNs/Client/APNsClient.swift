import Foundation
import Logging
import NIOCore
import NIOPosix

/// An HTTP/2 client for APNs: a pool of connections, provider tokens, and one request at a time
/// or thousands multiplexed.
///
/// ```swift
/// let client = try APNsClient(configuration: .init(endpoint: .sandbox, signingKey: key))
/// let response = try await client.send(.push(token: token, headers: headers, payload: bytes))
/// ```
///
/// The client signs and caches the provider token (renewed at 50 minutes; once more when APNs
/// says `ExpiredProviderToken`, unless the token is younger than APNs's 20 minutes between
/// updates: ``ProviderTokenPolicy``), attaches it to every request, and retires a connection
/// that answers `503 Shutdown` or sends GOAWAY. It does not retry otherwise: retries belong to
/// the caller, which knows what is still worth sending (see ``PushDelivery``).
///
/// **Logging.** Through the `Logger` given at ``init(configuration:eventLoopGroup:logger:now:)``
/// (none by default): connections made and lost with their cause at `debug` (a failure at
/// `warning`), the server's stream limit at `debug`, GOAWAY with its code and debug data at
/// `notice` (`warning` for an error code), token renewals at `debug` and `notice` (one APNs
/// would refuse at `warning`), answers that say the setup is wrong at `warning` (once per
/// connection, then `debug`), each answer at `trace`. Never the provider token; device tokens
/// only masked (``APNsRequest/masked(token:)``). Whether answers are traced is read from the
/// logger's level once, when the client is made, so a push costs nothing more when they are not.
/// ``PushDelivery`` logs its retries to the same logger.
///
/// It frames HTTP/2 itself (`HTTP2ClientHandler` on the connection core it shares with the
/// mock) rather than using AsyncHTTPClient: the provider-token rules are per connection, the
/// stream limit and GOAWAY reasons must be seen, and a connection that answers `Shutdown` must
/// be retired, none of which AsyncHTTPClient's pool exposes. Framing by hand also measured 2×
/// the pushes per second of swift-nio-http2's handler (BENCHMARKS.md).
public final class APNsClient: Sendable {
    /// What a client connects to and how: the endpoint, the connections, the key, the timeouts.
    public struct Configuration: Sendable {
        /// Where to connect: Apple's sandbox or production host, or a mock.
        public var endpoint: APNsEndpoint
        /// How many HTTP/2 connections to keep.
        public var connections: Int
        /// The team's key, for provider tokens; nil sends no `authorization` (a mock that accepts anything).
        public var signingKey: SigningKey?
        /// How long to wait for an answer.
        public var requestTimeout: Duration
        /// A PING goes out after this long without traffic.
        public var idlePing: Duration

        /// A configuration for `endpoint`; the defaults suit one sender of modest volume.
        public init(
            endpoint: APNsEndpoint, connections: Int = 1, signingKey: SigningKey? = nil,
            requestTimeout: Duration = .seconds(10), idlePing: Duration = .seconds(60)
        ) {
            self.endpoint = endpoint
            self.connections = connections
            self.signingKey = signingKey
            self.requestTimeout = requestTimeout
            self.idlePing = idlePing
        }
    }

    /// What the client was made with.
    public let configuration: Configuration
    /// Where the client logs; ``PushDelivery`` logs there too unless given another.
    public let logger: Logger
    /// Whether each answer is logged (the logger's level is `trace`), read once.
    private let tracesAnswers: Bool
    private let group: any EventLoopGroup
    private let ownsGroup: Bool
    let pool: ConnectionPool
    private let tokens: ProviderTokenCache?
    /// ``Configuration/requestTimeout`` as NIO's deadlines take it, converted once.
    private let requestTimeout: TimeAmount

    /// A logger that drops everything: the client's default.
    public static let silentLogger = Logger(label: "liveline.apns", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A client. Pass an event loop group to share one; otherwise the client makes its own.
    /// `logger` receives what happens to connections, tokens and answers (see "Logging" above).
    /// `now` gives UNIX seconds for token ages (tests pass a fake clock).
    public init(
        configuration: Configuration, eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: Logger = APNsClient.silentLogger,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws {
        self.configuration = configuration
        self.logger = logger
        tracesAnswers = logger.logLevel <= .trace
        requestTimeout = TimeAmount(configuration.requestTimeout)
        if let eventLoopGroup {
            group = eventLoopGroup
            ownsGroup = false
        } else {
            group = MultiThreadedEventLoopGroup(
                numberOfThreads: max(1, min(configuration.connections, System.coreCount)))
            ownsGroup = true
        }
        pool = try ConnectionPool(
            endpoint: configuration.endpoint, size: configuration.connections, group: group,
            idlePing: TimeAmount(configuration.idlePing), logger: logger)
        tokens = configuration.signingKey.map { ProviderTokenCache(key: $0, logger: logger, now: now) }
    }

    /// The event loops the connections run on (for timers that belong with them).
    public var eventLoopGroup: any EventLoopGroup { group }

    /// How many connections have been opened so far (reconnections included).
    public var connectionsMade: Int { pool.connectionsMade }

    /// Sends one request. Completes with APNs's answer (any status), or fails with an
    /// ``APNsTransportError`` when there was none.
    public func send(_ request: APNsRequest) -> EventLoopFuture<APNsResponse> {
        let promise = group.any().makePromise(of: APNsResponse.self)
        attempt(request, renewed: false, flush: true) { promise.completeWith($0) }
        return promise.futureResult
    }

    /// Sends one request and calls `completion` with APNs's answer (any status), or with an
    /// ``APNsTransportError`` when there was none. `completion` runs on the connection's event
    /// loop; keep it short.
    ///
    /// With `flush: false` the request waits in its connection's outbox until ``flush()`` (or
    /// until the connection, part-way through reading many answers, sends what waits): a caller
    /// that sends a burst (every activity's push at a goal) wakes each connection once for the
    /// whole burst instead of once per push.
    public func send(
        _ request: APNsRequest, flush: Bool = true,
        completion: @escaping @Sendable (Result<APNsResponse, any Error>) -> Void
    ) {
        attempt(request, renewed: false, flush: flush, completion: completion)
    }

    /// Sends the requests waiting after `send(_:flush: false, completion:)`.
    public func flush() {
        pool.forEachReadyConnection { $0.flushOutbox() }
    }

    /// Sends one request and waits for the answer.
    public func send(_ request: APNsRequest) async throws -> APNsResponse {
        try await send(request).get()
    }

    private func attempt(
        _ request: APNsRequest, renewed: Bool, flush: Bool,
        completion: @escaping @Sendable (Result<APNsResponse, any Error>) -> Void
    ) {
        let token = tokens?.current()
        if let connection = pool.readyConnection() {
            send(request, token: token, renewed: renewed, on: connection, flush: flush, completion: completion)
            return
        }
        pool.connection().whenComplete { result in
            switch result {
            case .success(let connection):
                self.send(request, token: token, renewed: renewed, on: connection, flush: true, completion: completion)
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    private func send(
        _ request: APNsRequest, token: ProviderToken?, renewed: Bool, on connection: APNsConnection, flush: Bool,
        completion: @escaping @Sendable (Result<APNsResponse, any Error>) -> Void
    ) {
        let pending = PendingRequest(
            request: request, token: token, renewed: renewed, client: self, connection: connection,
            completion: completion,
            deadline: .now() + requestTimeout
        )
        connection.send(pending, flush: flush)
    }

    /// A request of this client's was answered, or failed, on `connection`: retires the
    /// connection after `503 Shutdown`, and sends the request once more with a new provider
    /// token after `ExpiredProviderToken` (when the token may be renewed); otherwise (and after
    /// `Shutdown`) tells its caller.
    func received(_ result: Result<APNsResponse, any Error>, for pending: PendingRequest, on connection: APNsConnection)
    {
        if tracesAnswers { trace(result, for: pending.request, on: connection) }
        if case .success(let response) = result, !response.isSuccess {
            if response.status == 503, response.reason == .shutdown {
                logger.notice(
                    "APNs answered 503 Shutdown; retiring the connection",
                    metadata: ["apns-connection": "\(connection.number)", "apns-host": .string(connection.host)])
                pool.retire(connection)
            }
            if response.status == 403, response.reason == .expiredProviderToken, !pending.renewed,
                let token = pending.token, let tokens, tokens.renew(replacing: token).token != nil
            {
                attempt(pending.request, renewed: true, flush: true, completion: pending.completion)
                return
            }
            if case .misconfigured(let problem) = PushServiceAnswer(response) {
                logConfigurationError(problem.fix, response: response, on: connection)
            }
        }
        pending.completion(result)
    }

    /// Logs a setup problem: at `warning` the first time on a connection, at `debug` after
    /// that, so that a wrong key does not write a line per push.
    private func logConfigurationError(_ advice: String, response: APNsResponse, on connection: APNsConnection) {
        let level: Logger.Level = connection.firstConfigurationError() ? .warning : .debug
        logger.log(
            level: level, "APNs configuration error: \(advice)",
            metadata: [
                "apns-connection": "\(connection.number)", "apns-host": .string(connection.host),
                "answer": .string(response.description),
            ])
    }

    /// One answer, at `trace`: its status, reason and ids, the device token masked.
    private func trace(
        _ result: Result<APNsResponse, any Error>, for request: APNsRequest, on connection: APNsConnection
    ) {
        var metadata: Logger.Metadata = [
            "apns-connection": "\(connection.number)", "method": .string(request.method.rawValue),
            "path": .string(request.maskedPath),
        ]
        switch result {
        case .success(let response):
            metadata["status"] = "\(response.status)"
            if let reason = response.reason { metadata["reason"] = .string(reason.rawValue) }
            if let id = response.apnsID ?? response.requestID { metadata["apns-id"] = .string(id) }
            logger.trace("APNs answered", metadata: metadata)
        case .failure(let error):
            metadata["error"] = .string("\(error)")
            logger.trace("APNs request failed", metadata: metadata)
        }
    }

    /// Closes the connections (and the event loops, if the client made them).
    public func shutdown() async {
        await pool.close()
        if ownsGroup { try? await group.shutdownGracefully() }
    }
}
