import Foundation
import Hummingbird
import Logging
import Liveline
import NIOCore
import ServiceLifecycle
import Synchronization

/// The bridge's HTTP face: webhook ingest, the registry API, health, readiness and metrics, on
/// one Hummingbird HTTP/1.1 server.
///
/// | route | does |
/// |---|---|
/// | `POST /v1/webhooks/{source}` | verify, map, store durably, then 202 (`WebhookIngest`) |
/// | `PUT/GET/DELETE /v1/activities/{key}` | the activity registry, with an API key (`ActivityRegistryAPI`) |
/// | `PUT/DELETE /v1/activities/{key}/followers/{device}`, `POST …/followers` (NDJSON) | a key's audience (`FollowersAPI`) |
/// | `GET /v1/activities/{key}/pushes`, `GET …/followers/{device}` | the delivery history (`PushHistoryAPI`) |
/// | `GET /v1/events/{source}/{event}` | what became of one event, with an API key (`EventStatusAPI`) |
/// | `GET /healthz`, `/readyz`, `/metrics` | operations (`OperationsAPI`) |
///
/// Every refusal is JSON: `{"error": "<code>", "reason": "<sentence>"}`.
///
/// The server is a swift-service-lifecycle `Service`: put it in the `ServiceGroup` beside the
/// dispatcher, and a graceful shutdown (SIGTERM) stops it accepting connections and lets the
/// requests in flight finish. ``BridgeService`` shuts it down last, so that it answers 503
/// (`DrainMiddleware`) rather than refusing connections while the rest drains. ``makeApplication()`` gives the Hummingbird application itself
/// for callers that compose it differently. Listening on port 0 picks a free port, which
/// ``listeningPort()`` reports once the server is bound (tests use this).
public final class BridgeHTTPServer: Service, Sendable {
    /// Renders an activity's current content-state as JSON bytes for `GET /v1/activities/{key}`;
    /// nil when it has none yet. The dispatcher owns the engine state, so it provides this.
    public typealias ContentStateRenderer = @Sendable (RegisteredActivity) -> [UInt8]?

    /// Why ``listeningPort()`` has no port to give.
    public struct NotListening: Error, Sendable, CustomStringConvertible {
        /// Why there is no port: not started yet, or stopped.
        public var reason: String
        public var description: String { "the bridge's HTTP server is not listening: \(reason)" }
    }

    private enum Listening {
        case starting(waiters: [CheckedContinuation<Int, any Error>])
        case listening(port: Int)
        case stopped(reason: String)
    }

    private let address: ListenAddress
    private let idleTimeout: Duration
    private let logger: Logger
    private let ingest: WebhookIngest
    private let registry: ActivityRegistryAPI
    private let followers: FollowersAPI
    private let history: PushHistoryAPI
    private let events: EventStatusAPI
    private let operations: OperationsAPI
    /// Caps the open connections (`max-connections`).
    public let connectionLimiter: ConnectionLimiter
    private let listening = Mutex(Listening.starting(waiters: []))
    private let drain: BridgeDrain

    /// - Parameters:
    ///   - configuration: sources, body limit, API key hashes and the listen address.
    ///   - store: the registry and readiness read it; the inbox writes through `inbox`.
    ///   - inbox: the shared group-commit writer, so webhooks share transactions with each other
    ///     (and with stream feeds that use the same writer).
    ///   - metrics: where webhooks are counted and depths set; `/metrics` prints its registry.
    ///   - logger: the server's and every request's logger (each request adds its id).
    ///   - listen: overrides `configuration.listen` (port 0 takes any free port).
    ///   - clock: the time of receipt and of verification windows; the wall clock by default.
    ///   - wake: called after an event is stored and after a registration changes, so the
    ///     dispatcher looks at once; must return quickly.
    ///   - wakeAudience: called, besides `wake`, after a registration or a follower changes, so
    ///     the fan-out sender sends catch-ups at once; must return quickly. Not after a webhook:
    ///     the fan-outs a webhook leads to are the dispatcher's, which wakes the sender itself.
    ///   - contentState: the current content-state of an activity, for `GET`.
    ///   - journal: the dispatcher's record of its recent steps, for `GET /v1/events/…`.
    ///   - device: what the device behind an activity shows, when the bridge can see it.
    ///   - drain: once it begins, webhooks get 503 with `Retry-After` and `/readyz` says not
    ///     ready, while the server keeps listening until its own graceful shutdown.
    ///   - environments: the APNs environments a registration or follower may name.
    ///   - halts: while sending is halted for an app and environment, `/readyz` says not ready,
    ///     with the reason and the fix.
    public init(
        configuration: BridgeConfiguration, store: any Store, inbox: InboxWriter, metrics: BridgeMetrics,
        logger: Logger,
        listen: ListenAddress? = nil, clock: @escaping @Sendable () -> Millis = BridgeClock.now,
        wake: @escaping @Sendable () -> Void, wakeAudience: @escaping @Sendable () -> Void = {},
        contentState: @escaping ContentStateRenderer,
        journal: DispatchJournal? = nil,
        device: DeviceView? = nil, drain: BridgeDrain = BridgeDrain(),
        environments: APNsEnvironments = .both, halts: APNsHalts? = nil
    ) {
        address = listen ?? configuration.listen
        idleTimeout = configuration.idleTimeout
        self.logger = logger
        self.drain = drain
        let bodyLimit = RequestBodyLimit(limit: configuration.bodyLimit)
        ingest = WebhookIngest(configuration: configuration, inbox: inbox, metrics: metrics, wake: wake, clock: clock)
        let registrationChanged: @Sendable () -> Void = {
            wake()
            wakeAudience()
        }
        registry = ActivityRegistryAPI(
            store: store, authenticator: RegistryAuthenticator(configuredKeys: configuration.apiKeys, store: store),
            sources: configuration.sources, bodyLimit: bodyLimit, contentState: contentState, device: device,
            wake: registrationChanged, clock: clock, environments: environments)
        // An import moves thousands of followers in one request: it may be larger than a webhook.
        followers = FollowersAPI(
            store: store, authenticator: RegistryAuthenticator(configuredKeys: configuration.apiKeys, store: store),
            bodyLimit: RequestBodyLimit(limit: max(configuration.bodyLimit, 4 << 20)), wake: registrationChanged,
            clock: clock,
            environments: environments)
        history = PushHistoryAPI(store: store, followers: followers)
        events = EventStatusAPI(store: store, registry: registry, journal: journal)
        operations = OperationsAPI(store: store, metrics: metrics, drain: drain, halts: halts)
        connectionLimiter = ConnectionLimiter(
            limit: configuration.maxConnections, logger: logger, onRefused: { metrics.connectionRefused() })
    }

    /// The routes, with JSON errors for paths no route matches.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: DrainMiddleware(drain: drain))
        let ingest = ingest, registry = registry, followers = followers, events = events, operations = operations
        let history = history
        router.post("/v1/webhooks/:source") { request, context in await ingest.respond(to: request, context: context) }
        router.put("/v1/activities/:key") { request, context in await registry.put(request, context: context) }
        router.get("/v1/activities/:key") { request, context in await registry.get(request, context: context) }
        router.delete("/v1/activities/:key") { request, context in await registry.delete(request, context: context) }
        router.put("/v1/activities/:key/followers/:device") { request, context in
            await followers.put(request, context: context)
        }
        router.delete("/v1/activities/:key/followers/:device") { request, context in
            await followers.delete(request, context: context)
        }
        router.get("/v1/activities/:key/followers/:device") { request, context in
            await history.follower(request, context: context)
        }
        router.get("/v1/activities/:key/pushes") { request, context in await history.pushes(request, context: context) }
        router.post("/v1/activities/:key/followers") { request, context in
            await followers.importFollowers(request, context: context)
        }
        router.get("/v1/events/:source/:event") { request, context in await events.get(request, context: context) }
        router.get("/healthz") { request, context in operations.healthz(request, context: context) }
        router.get("/readyz") { request, context in await operations.readyz(request, context: context) }
        router.get("/metrics") { request, context in await operations.metrics(request, context: context) }
        return router
    }

    /// The Hummingbird application serving the bridge's routes on the listen address. Running
    /// it (as a `Service`) binds the address and reports the port to ``listeningPort()``.
    public func makeApplication() -> Application<RouterResponder<BasicRequestContext>> {
        let limiter = connectionLimiter
        let timeout = TimeAmount(idleTimeout)
        return Application(
            router: makeRouter(),
            // Idle keep-alive connections, those that stop half-way through a request, and
            // requests that take longer than `idle-timeout` to arrive are closed, so slow or
            // vanished senders do not hold sockets.
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        limiter.makeHandler(), HTTPFramingErrorAnswer(), RequestReadDeadline(timeout: timeout),
                    ],
                    idleTimeout: timeout)),
            configuration: ApplicationConfiguration(
                address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { [weak self] channel in self?.didStart(port: channel.localAddress?.port) },
            logger: logger)
    }

    /// Runs the server until a graceful shutdown or cancellation; a socket that cannot be bound
    /// throws `ListenFailure` (the address, and whether another program holds it).
    public func run() async throws {
        do {
            try await makeApplication().run()
            didStop("the server stopped")
        } catch {
            // The socket's own words name no port: say which address, and the likely cause.
            let failure: any Error = ListenFailure(bridgeListeningOn: address, error: error) ?? error
            didStop("\(failure)")
            throw failure
        }
    }

    /// The bound port while the server listens; nil before and after.
    public var port: Int? {
        listening.withLock { state in
            if case .listening(let port) = state { port } else { nil }
        }
    }

    /// Waits until the server listens and returns its port; throws ``NotListening`` when it
    /// stopped (or failed to bind) first.
    public func listeningPort() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let answer: Result<Int, NotListening>? = listening.withLock { state in
                switch state {
                case .starting(var waiters):
                    waiters.append(continuation)
                    state = .starting(waiters: waiters)
                    return nil
                case .listening(let port): return .success(port)
                case .stopped(let reason): return .failure(NotListening(reason: reason))
                }
            }
            if let answer { continuation.resume(with: answer) }
        }
    }

    private func didStart(port: Int?) {
        let waiters = listening.withLock { state -> [CheckedContinuation<Int, any Error>] in
            guard case .starting(let waiters) = state else { return [] }
            state = port.map { .listening(port: $0) } ?? .stopped(reason: "the listening socket has no port")
            return waiters
        }
        for waiter in waiters {
            if let port {
                waiter.resume(returning: port)
            } else {
                waiter.resume(throwing: NotListening(reason: "the listening socket has no port"))
            }
        }
        if let port {
            logger.notice(
                "bridge listening", metadata: ["host": .string(address.host), "port": .stringConvertible(port)])
        }
    }

    private func didStop(_ reason: String) {
        let waiters = listening.withLock { state -> [CheckedContinuation<Int, any Error>] in
            defer { state = .stopped(reason: reason) }
            if case .starting(let waiters) = state { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume(throwing: NotListening(reason: reason)) }
    }
}
