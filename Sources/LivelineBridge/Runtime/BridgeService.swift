import Foundation
import Liveline
import LivelineAPNs
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The whole bridge in one process: the HTTP server (webhooks, registry, operations), a
/// ``StreamClient`` per stream source, the dispatcher, the outbox sender, the fan-out sender
/// (a key's pushes to its followers), the renewal sender (stories past the system's 8 hours),
/// the ``StorePruner`` and a gauge of the store's depths, on one store, until SIGTERM or SIGINT.
///
/// A graceful shutdown (SIGTERM, SIGINT, ``shutdown()``) drains within the configuration's
/// `drain-timeout` (``BridgeDrain``): at once, webhooks are answered 503 with `Retry-After`
/// (the HTTP server keeps listening and answering until the end) and `/readyz` says not ready;
/// the streams and the pruner stop; the dispatcher commits the pass in flight and stops; the
/// outbox, fan-out and renewal senders wait for the pushes in flight to be answered and record them,
/// give up on those still unanswered shortly before the deadline, and give back every claim of
/// this instance, so the next instance (or another sharing a PostgreSQL store) takes them at
/// once; then the HTTP server closes. Whatever is still queued stays in the store.
///
/// Pushes go through a client per APNs environment (``APNsClients``) and the ``APNsHalts``,
/// shared by both senders: a configuration error APNs reports halts that app and environment
/// until a probe succeeds, and `/readyz` says so meanwhile. SIGHUP (or ``reloadCredentials()``)
/// reads the APNs key again and makes new clients: every halted app is probed at once.
///
/// `liveline bridge serve` is this type plus argument parsing; tests build it the same way.
public final class BridgeService: Sendable {
    /// How this instance takes part: its name, leases, retries, and an address to override.
    public struct Options: Sendable {
        /// This instance's name in leases: unique among instances sharing a store.
        public var instance: String
        /// How long a dead instance's activities and pushes stay claimed before others take them.
        public var lease: Duration
        /// The back-off between attempts to send a push after a retryable answer, and how many to make.
        public var retry: RetryPolicy
        /// Overrides the configuration's `apns.probe-interval`.
        public var probeInterval: Duration?
        /// Overrides the configuration's `listen` (port 0: any free port).
        public var listen: ListenAddress?
        /// What the device behind an activity shows, when the caller can see it (the embedded
        /// mock APNs); the registry and `GET /v1/events/…` show it as `device`.
        public var device: DeviceView?

        /// Options for one bridge; the defaults suit one instance on one store.
        public init(
            instance: String = BridgeService.defaultInstanceName(), lease: Duration = .seconds(30),
            retry: RetryPolicy = RetryPolicy(base: .milliseconds(500), cap: .seconds(60), maxAttempts: 10),
            listen: ListenAddress? = nil
        ) {
            self.instance = instance
            self.lease = lease
            self.retry = retry
            self.listen = listen
        }
    }

    /// What the bridge serves: sources, listen address, limits, retention.
    public let configuration: BridgeConfiguration
    /// Where everything between a webhook and its push is kept.
    public let store: any Store
    /// The Prometheus metrics served at `/metrics`.
    public let metrics: BridgeMetrics
    /// Where webhooks and stream events are stored before they are answered.
    public let inbox: InboxWriter
    /// Turns stored events into pushes.
    public let dispatcher: BridgeDispatcher
    /// Sends the outbox to APNs.
    public let sender: OutboxSender
    /// Sends each push of a key with followers to all of them.
    public let fanOut: FanOutSender
    /// Sends renewals: stories carried past the system's 8 hours.
    public let renewals: RenewalSender
    /// The HTTP server: webhooks, the registry API, health and metrics.
    public let http: BridgeHTTPServer
    /// Removes what the retention policy no longer keeps.
    public let pruner: StorePruner
    /// Begins at the graceful shutdown; the HTTP server and the sender follow it.
    public let drain: BridgeDrain
    /// A client per APNs environment.
    public let clients: APNsClients
    /// Which apps and environments are halted by a setup error, shared by both senders.
    public let halts: APNsHalts
    /// One per stream source, in configuration order.
    public let streams: [StreamClient]
    private let logger: Logger
    private let group = Mutex<ServiceGroup?>(nil)

    /// The bridge for `configuration`, on `store`, sending through one `client`; ``run()`` starts it.
    ///
    /// - Parameters:
    ///   - configuration: the sources, listen address, limits and retention.
    ///   - store: the store the configuration names, opened; the caller closes it.
    ///   - client: where pushes go (APNs, or a mock), for the configuration's environment alone;
    ///     the caller shuts it down.
    ///   - options: this instance's name, leases and retries.
    ///   - logger: where every part of the bridge logs.
    public convenience init(
        configuration: BridgeConfiguration, store: any Store, client: APNsClient, options: Options = Options(),
        logger: Logger
    ) {
        self.init(
            configuration: configuration, store: store,
            clients: APNsClients(client, environment: configuration.apns?.environment ?? .sandbox), options: options,
            logger: logger)
    }

    /// The bridge for `configuration`, on `store`, sending through `clients`; ``run()`` starts it.
    ///
    /// - Parameters:
    ///   - configuration: the sources, listen address, limits and retention.
    ///   - store: the store the configuration names, opened; the caller closes it.
    ///   - clients: where pushes go, a client per environment; the caller shuts them down.
    ///   - options: this instance's name, leases, retries and probe interval.
    ///   - logger: where every part of the bridge logs.
    public init(
        configuration: BridgeConfiguration, store: any Store, clients: APNsClients, options: Options = Options(),
        logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        let metrics = BridgeMetrics()
        self.metrics = metrics
        self.clients = clients
        let halts = APNsHalts(
            probeInterval: options.probeInterval ?? configuration.apns?.probeInterval
                ?? APNsSettings.standardProbeInterval,
            logger: logger, observer: metrics)
        self.halts = halts
        inbox = InboxWriter(store: store)
        let catalog = StoryCatalog(sources: configuration.sources, topic: configuration.apns?.topic)
        sender = OutboxSender(
            store: store, clients: clients, halts: halts,
            configuration: .init(instance: options.instance, lease: options.lease * 2, retry: options.retry),
            observer: metrics, logger: logger
        )
        let fanOut = FanOutSender(
            store: store, clients: clients, halts: halts,
            configuration: .init(
                instance: options.instance, lease: options.lease * 2, rangesPerPass: 16, retry: options.retry),
            observer: metrics, logger: logger
        )
        self.fanOut = fanOut
        let renewals = RenewalSender(
            store: store, clients: clients, halts: halts,
            configuration: .init(instance: options.instance, lease: options.lease * 2, retry: options.retry),
            observer: metrics, logger: logger)
        self.renewals = renewals
        let dispatcher = BridgeDispatcher(
            store: store, catalog: catalog, configuration: .init(instance: options.instance, lease: options.lease),
            observer: metrics, logger: logger, outboxSignal: sender.wakeSignal, fanOutSignal: fanOut.wakeSignal,
            renewalSignal: renewals.wakeSignal
        )
        self.dispatcher = dispatcher
        let drain = BridgeDrain(timeout: configuration.drainTimeout)
        self.drain = drain
        http = BridgeHTTPServer(
            configuration: configuration, store: store, inbox: inbox, metrics: metrics, logger: logger,
            listen: options.listen,
            wake: { dispatcher.wakeSignal.ring() }, wakeAudience: { fanOut.wakeSignal.ring() },
            contentState: { dispatcher.contentState(of: $0) },
            journal: dispatcher.journal, device: options.device, drain: drain,
            environments: APNsEnvironments(
                served: clients.environments, defaultEnvironment: clients.defaultEnvironment),
            halts: halts
        )
        pruner = StorePruner(
            store: store, policy: configuration.retention, sources: configuration.sources.map(\.name), metrics: metrics,
            logger: logger
        )
        streams = configuration.sources.compactMap { [inbox] source in
            StreamClient(
                source: source, inbox: inbox, store: store, metrics: metrics, logger: logger,
                bodyLimit: configuration.bodyLimit,
                wake: { dispatcher.wakeSignal.ring() })
        }
    }

    /// `HOSTNAME-PID`: unique per running process on one machine or in one cluster.
    public static func defaultInstanceName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// Runs until SIGTERM or SIGINT or ``shutdown()`` (a graceful shutdown, a drain) or until
    /// the task is cancelled.
    public func run() async throws {
        let drain = drain, sender = sender, fanOut = fanOut, renewals = renewals, dispatcher = dispatcher
        let store = store, logger = logger
        let clients = clients, halts = halts
        var configuration = ServiceGroupConfiguration(
            // Shut down in reverse: the drain's start first (webhooks get 503 from then on), the
            // streams, the pruner, the dispatcher after its pass, the sender after its pushes in
            // flight, and the HTTP server last, so that it answers until the drain is over.
            services: [
                .init(service: http),
                .init(
                    service: Worker(name: "sender", stop: { sender.stop(cutoff: drain.sendCutoff) }) {
                        await sender.run()
                    }),
                .init(
                    service: Worker(name: "fan-out", stop: { fanOut.stop(cutoff: drain.sendCutoff) }) {
                        await fanOut.run()
                    }),
                .init(
                    service: Worker(name: "renewals", stop: { renewals.stop(cutoff: drain.sendCutoff) }) {
                        await renewals.run()
                    }),
                .init(
                    service: Worker(name: "dispatcher", stop: { dispatcher.stop() }) { await dispatcher.run() }),
                .init(
                    service: Worker(name: "depths") { [metrics] in
                        await Self.reportDepths(
                            store: store, metrics: metrics, defaultEnvironment: clients.defaultEnvironment,
                            logger: logger)
                    }),
                .init(service: Worker(name: "halts") { await Self.remindOfHalts(halts) }),
                .init(service: Worker(name: "reload") { await self.reloadOnHangUp() }),
                .init(service: Worker(name: "pruner") { [pruner] in await pruner.run() }),
            ]
                + streams.map { stream in
                    .init(service: Worker(name: "stream \(stream.source.name)") { await stream.run() })
                } + [
                    .init(service: DrainStart(drain: drain, logger: logger))
                ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // A backstop: a drain that overruns (a store that does not answer) is cancelled.
        configuration.maximumGracefulShutdownDuration = drain.timeout + .seconds(5)
        let group = ServiceGroup(configuration: configuration)
        self.group.withLock { $0 = group }
        try await group.run()
    }

    /// Begins a graceful shutdown, as SIGTERM does; ``run()`` returns when the drain is over.
    public func shutdown() async {
        drain.begin()
        await group.withLock { $0 }?.triggerGracefulShutdown()
    }

    /// Reads the APNs key again and makes new clients (on SIGHUP): every app and environment is
    /// unverified again, so a halted one is probed with its next waiting push, at once. A key
    /// that cannot be read leaves the clients as they were, and says why.
    public func reloadCredentials() {
        guard clients.canReload else {
            logger.warning(
                "SIGHUP: this bridge's APNs clients cannot be made again (no credentials to read); restart it")
            return
        }
        do {
            try clients.reload()
        } catch {
            logger.error(
                "SIGHUP: the APNs key could not be read again; the clients stay as they were",
                metadata: ["error": "\(error)"])
            return
        }
        halts.reset()
        logger.notice(
            "SIGHUP: the APNs key was read again; halted apps are probed with their next push",
            metadata: ["environments": "\(clients.environments.map(\.rawValue).joined(separator: ", "))"])
        sender.wakeSignal.ring()
        fanOut.wakeSignal.ring()
        renewals.wakeSignal.ring()
    }

    /// Reloads the credentials at each SIGHUP until cancelled.
    private func reloadOnHangUp() async {
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            reloadCredentials()
        }
    }

    /// One log line a minute while sending is halted (``APNsHalts/remind(now:)``).
    private static func remindOfHalts(_ halts: APNsHalts) async {
        while !Task.isCancelled {
            halts.remind(now: BridgeClock.now())
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Sets the queue-depth gauges every few seconds, and the followers gauges every 30 s.
    private static func reportDepths(
        store: any Store, metrics: BridgeMetrics, defaultEnvironment: APNsEnvironment, logger: Logger
    ) async {
        var round = 0
        while !Task.isCancelled {
            do {
                metrics.setDepths(try await store.counts())
                // Counting followers reads every follower row: every 30 s, not every 5.
                if round % 6 == 0 {
                    metrics.setFollowers(try await store.allFollowerCounts(), defaultEnvironment: defaultEnvironment)
                }
                round += 1
            } catch  where Task.isCancelled || error is CancellationError {
                // The bridge is stopping (a port in use stops it before it started): not a
                // problem of the store's.
                return
            } catch {
                logger.warning("could not read the store's depths", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(5))
        }
    }
}

/// A loop of the bridge. With `stop`, the graceful shutdown calls it and waits for the loop
/// to end by itself; without, the graceful shutdown cancels the loop.
private struct Worker: Service {
    var name: String
    var stop: (@Sendable () -> Void)?
    var body: @Sendable () async -> Void

    init(name: String, stop: (@Sendable () -> Void)? = nil, _ body: @escaping @Sendable () async -> Void) {
        self.name = name
        self.stop = stop
        self.body = body
    }

    func run() async throws {
        if let stop {
            await withGracefulShutdownHandler {
                await body()
            } onGracefulShutdown: {
                stop()
            }
        } else {
            await cancelWhenGracefulShutdown { await body() }
        }
    }
}

/// Begins the drain when the graceful shutdown reaches it, first of all (it is the last service).
private struct DrainStart: Service {
    let drain: BridgeDrain
    let logger: Logger

    func run() async throws {
        guard (try? await gracefulShutdown()) != nil else { return }
        drain.begin()
        logger.notice(
            "draining: webhooks get 503 until the pushes in flight are answered",
            metadata: ["drain-timeout": "\(drain.timeout)"])
    }
}

extension BridgeMetrics: DispatchObserver {}
