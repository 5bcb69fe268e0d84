import Foundation
import Liveline
import LivelineAPNs
import Logging
import ServiceLifecycle

/// The whole bridge in one process: the HTTP server (webhooks, registry, operations), a
/// ``StreamClient`` per stream source, the dispatcher and the outbox sender, on one store,
/// until SIGTERM or SIGINT.
///
/// A graceful shutdown stops the streams and the HTTP server first (no new events; an event
/// being stored is stored, requests in flight finish), then the dispatcher after its current
/// step, then the sender after the pushes it has in flight are answered and recorded. Whatever is still queued stays in the store for the
/// next start, or for another instance sharing a PostgreSQL store.
///
/// `liveline bridge serve` is this type plus argument parsing; tests build it the same way.
public final class BridgeService: Sendable {
    public struct Options: Sendable {
        /// This instance's name in leases: unique among instances sharing a store.
        public var instance: String
        /// How long a dead instance's activities and pushes stay claimed before others take them.
        public var lease: Duration
        public var retry: RetryPolicy
        /// Overrides the configuration's `listen` (port 0: any free port).
        public var listen: ListenAddress?
        /// What the device behind an activity shows, when the caller can see it (the embedded
        /// mock APNs); the registry and `GET /v1/events/…` show it as `device`.
        public var device: DeviceView?

        public init(
            instance: String = BridgeService.defaultInstanceName(), lease: Duration = .seconds(30),
            retry: RetryPolicy = RetryPolicy(base: 500, cap: 60_000, maxAttempts: 10), listen: ListenAddress? = nil
        ) {
            self.instance = instance
            self.lease = lease
            self.retry = retry
            self.listen = listen
        }
    }

    public let configuration: BridgeConfiguration
    public let store: any Store
    public let metrics: BridgeMetrics
    public let inbox: InboxWriter
    public let dispatcher: BridgeDispatcher
    public let sender: OutboxSender
    public let http: BridgeHTTPServer
    /// One per stream source, in configuration order.
    public let streams: [StreamClient]
    private let logger: Logger

    /// - Parameter client: where pushes go (APNs, or a mock); the caller shuts it down.
    public init(configuration: BridgeConfiguration, store: any Store, client: APNsClient, options: Options = Options(), logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        let metrics = BridgeMetrics()
        self.metrics = metrics
        inbox = InboxWriter(store: store)
        let catalog = StoryCatalog(sources: configuration.sources, topic: configuration.apns?.topic)
        sender = OutboxSender(
            store: store, client: client,
            configuration: .init(instance: options.instance, lease: options.lease * 2, retry: options.retry),
            observer: metrics, logger: logger
        )
        let dispatcher = BridgeDispatcher(
            store: store, catalog: catalog, configuration: .init(instance: options.instance, lease: options.lease),
            observer: metrics, logger: logger, outboxSignal: sender.wakeSignal
        )
        self.dispatcher = dispatcher
        http = BridgeHTTPServer(
            configuration: configuration, store: store, inbox: inbox, metrics: metrics, logger: logger, listen: options.listen,
            wake: { dispatcher.wakeSignal.ring() }, contentState: { dispatcher.contentState(of: $0) },
            journal: dispatcher.journal, device: options.device
        )
        streams = configuration.sources.compactMap { [inbox] source in
            StreamClient(
                source: source, inbox: inbox, store: store, metrics: metrics, logger: logger, bodyLimit: configuration.bodyLimit,
                wake: { dispatcher.wakeSignal.ring() })
        }
    }

    /// `HOSTNAME-PID`: unique per running process on one machine or in one cluster.
    public static func defaultInstanceName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// Runs until SIGTERM or SIGINT (a graceful shutdown) or until the task is cancelled.
    public func run() async throws {
        let group = ServiceGroup(
            configuration: .init(
                // Shut down in reverse: the streams and HTTP first, then the dispatcher, then the sender.
                services: [
                    .init(service: Worker(name: "sender") { [sender, store] in
                        await withTaskExecutorPreference(store.taskExecutor) { await sender.run() }
                    }),
                    .init(service: Worker(name: "dispatcher") { [dispatcher, store] in
                        await withTaskExecutorPreference(store.taskExecutor) { await dispatcher.run() }
                    }),
                    .init(service: Worker(name: "depths") { [store, metrics, logger] in
                        await Self.reportDepths(store: store, metrics: metrics, logger: logger)
                    }),
                    .init(service: http),
                ] + streams.map { stream in .init(service: Worker(name: "stream \(stream.source.name)") { await stream.run() }) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

    /// Sets the queue-depth gauges every few seconds.
    private static func reportDepths(store: any Store, metrics: BridgeMetrics, logger: Logger) async {
        while !Task.isCancelled {
            do {
                metrics.setDepths(try await store.counts())
            } catch {
                logger.warning("could not read the store's depths", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(5))
        }
    }
}

/// A loop that runs until the graceful shutdown cancels it.
private struct Worker: Service {
    var name: String
    var body: @Sendable () async -> Void

    init(name: String, _ body: @escaping @Sendable () async -> Void) {
        self.name = name
        self.body = body
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { await body() }
    }
}

extension BridgeMetrics: DispatchObserver {}
