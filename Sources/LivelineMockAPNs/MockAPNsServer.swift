import Foundation
import Liveline
import LivelineMockTLS
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Why the mock could not start.
public enum MockAPNsStartError: Error, Sendable, CustomStringConvertible {
    /// The TLS certificate or key could not be loaded or made.
    case tls(String)
    /// The certificate PEM could not be written where clients were told to find it.
    case writeCertificate(path: String, reason: String)
    /// A listener (the mock, its inspection API or its dashboard) could not bind.
    case bind(ListenFailure)

    public var description: String {
        switch self {
        case .tls(let reason): "TLS: \(reason)"
        case .writeCertificate(let path, let reason): "cannot write the certificate to \(path): \(reason)"
        case .bind(let failure): failure.description
        }
    }
}

/// An APNs look-alike: an HTTP/2 server that validates pushes like APNs and simulates the
/// device behind each token.
///
/// Start one with ``start(_:)``; it serves until ``shutdown()``. The inspection methods
/// (``activities()``, ``pushes(token:)``, ``stats()``, ``setFaults(_:)``, ``reset()``) return
/// the same data as the HTTP inspection API and may be called from any thread or task.
///
/// **Concurrency.** Connections run on a `MultiThreadedEventLoopGroup` the server owns
/// (``MockAPNsConfiguration/eventLoopThreads``). Per-connection state is loop-bound; shared
/// state is behind one lock (see ``MockAPNsState``). The server object is immutable and
/// `Sendable`.
public final class MockAPNsServer: Sendable {
    /// The host it listens on.
    public let host: String
    /// The bound port (the real one when the configuration asked for 0).
    public let port: Int
    /// Whether it speaks TLS (`https`) or h2c (`http`).
    public let usesTLS: Bool
    /// The PEM of the self-signed certificate, when one was made.
    public let certificatePEM: String?
    /// Where that PEM was written, when a path was given.
    public let certificatePath: String?
    /// The bound port of the inspection API, when one is served.
    public let inspectionPort: Int?

    private let state: MockAPNsState
    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let inspectionChannel: (any Channel)?
    private let connections: ConnectionRegistry
    private let logger: Logger
    private let dashboard: DashboardService?

    private init(
        host: String, port: Int, usesTLS: Bool, certificatePEM: String?, certificatePath: String?, inspectionPort: Int?,
        state: MockAPNsState, group: MultiThreadedEventLoopGroup, serverChannel: any Channel,
        inspectionChannel: (any Channel)?, connections: ConnectionRegistry, logger: Logger, dashboard: DashboardService?
    ) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.certificatePEM = certificatePEM
        self.certificatePath = certificatePath
        self.inspectionPort = inspectionPort
        self.state = state
        self.group = group
        self.serverChannel = serverChannel
        self.inspectionChannel = inspectionChannel
        self.connections = connections
        self.logger = logger
        self.dashboard = dashboard
    }

    /// Starts listening with `configuration`; returns once the listeners are bound.
    public static func start(_ configuration: MockAPNsConfiguration) async throws(MockAPNsStartError) -> MockAPNsServer
    {
        var certificatePEM: String?
        var certificatePath: String?
        var sslContext: NIOSSLContext?
        if case .tls(let identity) = configuration.transport {
            let made: MockTLS
            do {
                made = try MockTLS(
                    identity, host: configuration.host, commonName: "Liveline mock APNs", protocols: ["h2"])
            } catch {
                switch error {
                case .tls(let reason): throw .tls(reason)
                case .writeCertificate(let path, let reason): throw .writeCertificate(path: path, reason: reason)
                }
            }
            sslContext = made.context
            certificatePEM = made.certificatePEM
            certificatePath = made.certificatePath
        }
        let verifier: JWTVerifier?
        switch configuration.authentication {
        case .acceptAnyToken: verifier = nil
        case .keys(let keys): verifier = JWTVerifier(keys: keys)
        }
        let state = MockAPNsState(configuration: configuration)
        let connections = ConnectionRegistry(limit: configuration.maxConnections, logger: configuration.logger)
        let pipeline = ServerPipeline(
            sslContext: sslContext, state: state, validator: RequestValidator(verifier: verifier),
            maxConcurrentStreams: max(1, configuration.maxConcurrentStreams), connections: connections)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        let serverChannel: any Channel
        do {
            serverChannel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelOption(.maxMessagesPerRead, value: 16)
                .childChannelInitializer { pipeline.configure($0) }
                .bind(host: configuration.host, port: configuration.port)
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw .bind(
                ListenFailure(
                    server: "the mock APNs", host: configuration.host, port: configuration.port, setting: "--listen",
                    error: error))
        }
        var inspectionChannel: (any Channel)?
        if let inspection = configuration.inspection {
            do {
                inspectionChannel = try await InspectionServer.bind(
                    host: inspection.host, port: inspection.port, group: group, router: InspectionRouter(state: state))
            } catch {
                try? await serverChannel.close()
                try? await group.shutdownGracefully()
                throw .bind(
                    ListenFailure(
                        server: "the mock's inspection API", host: inspection.host, port: inspection.port,
                        setting: "--inspect", error: error))
            }
        }
        var dashboard: DashboardService?
        if let settings = configuration.dashboard {
            do {
                dashboard = try await DashboardService.start(
                    settings, state: state, budgetPerHour: configuration.budget.effectivePerHour, group: group)
            } catch {
                try? await serverChannel.close()
                try? await inspectionChannel?.close()
                try? await group.shutdownGracefully()
                throw .bind(
                    ListenFailure(
                        server: "the dashboard", host: settings.host, port: settings.port, setting: settings.setting,
                        error: error))
            }
        }
        let server = MockAPNsServer(
            host: configuration.host, port: serverChannel.localAddress?.port ?? configuration.port,
            usesTLS: sslContext != nil, certificatePEM: certificatePEM, certificatePath: certificatePath,
            inspectionPort: inspectionChannel?.localAddress?.port, state: state, group: group,
            serverChannel: serverChannel, inspectionChannel: inspectionChannel, connections: connections,
            logger: configuration.logger, dashboard: dashboard)
        configuration.logger.info("mock APNs listening", metadata: ["url": "\(server.baseURL)"])
        return server
    }

    /// `https://host:port` or `http://host:port`, with IPv6 hosts in brackets.
    public var baseURL: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "https" : "http")://\(shownHost):\(port)"
    }

    // MARK: Inspection

    /// Every activity the device knows, oldest first.
    public func activities() -> [ActivitySnapshot] { state.activities() }

    /// One activity, by its update token (or id).
    public func activity(token: String) -> ActivitySnapshot? { state.activity(token: token) }

    /// The last pushes to `token` (or `channel:<id>` for a broadcast channel), oldest first.
    public func pushes(token: String) -> [AnsweredPush] { state.pushes(token: token) }

    /// The broadcast channels.
    public func channels() -> [BroadcastChannel] { state.channels() }

    /// Counters over the whole mock.
    public func stats() -> MockAPNsStats { state.stats() }

    /// The fault plan in force.
    public func faults() -> FaultPlan { state.faults() }

    /// Replaces the fault plan; shutdown windows count from now.
    public func setFaults(_ plan: FaultPlan) { state.setFaults(plan) }

    /// Forgets activities, channels, histories and counters (keeps faults and configured subscriptions).
    public func reset() { state.reset() }

    /// The pushes as they are answered, for a live view. Each call makes a new stream; when
    /// the consumer lags, the oldest undelivered events are dropped beyond `bufferingNewest`.
    /// The stream finishes at ``shutdown()``.
    public func events(bufferingNewest limit: Int = 1024) -> AsyncStream<AnsweredPush> {
        state.events(bufferingNewest: limit)
    }

    // MARK: Dashboard

    /// The dashboard page's address (`http://host:port/`), when one is served.
    public var dashboardURL: String? { dashboard?.url }

    /// The bound port of the dashboard, when one is served.
    public var dashboardPort: Int? { dashboard?.port }

    /// Says why the push answered with `id` (its apns-id, or apns-request-id for a broadcast)
    /// was sent, e.g. the plan's `beat goal-home-1 · budget 11/12`; the dashboard shows it in the
    /// push's timeline row. Does nothing without a dashboard.
    public func annotatePush(id: String, reason: String) {
        dashboard?.broadcaster.annotate(id: id, reason: reason)
    }

    // MARK: Shutdown

    /// Stops accepting, sends each connection GOAWAY `{"reason":"Shutdown"}`, waits for
    /// in-flight streams (up to 5 s), then closes everything and stops the event loops.
    public func shutdown() async {
        try? await serverChannel.close()
        try? await inspectionChannel?.close()
        await dashboard?.shutdown()
        let open = connections.all
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(GracefulShutdownEvent())
        }
        for channel in open {
            try? await channel.closeFuture.get()
        }
        state.finishEvents()
        try? await group.shutdownGracefully()
        logger.info("mock APNs stopped")
    }
}
