import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// One HTTP/2 connection to APNs, ready for requests.
///
/// Requests come from any thread and wait in an outbox; one task on the channel's event loop
/// drains it and hands them all to `HTTP2ClientHandler` directly (not a pipeline write
/// each), which writes their frames at once. A burst (a goal for
/// every fan at once) then costs one event-loop wake-up and one flush per connection, not one
/// per push. While a read answers many requests, the handler sends what waits every 16
/// answers (`HTTP2ClientHandler.sendWaiting`), so the server works on the next requests
/// while the client handles the rest of the answers.
final class APNsConnection: Sendable {
    let channel: any Channel
    let number: Int
    /// `host:port`, for errors.
    let host: String
    private let outbox = NIOLockedValueBox(Outbox())
    /// The connection's HTTP/2 handler, reached only on the event loop.
    private let handler: NIOLoopBound<HTTP2ClientHandler>
    /// Why the connection closed, as its handler saw it: requests that arrive after it closed
    /// fail with that cause (an untrusted certificate), not a bare "closed".
    private let closeReason: NIOLockedValueBox<APNsTransportError?>
    /// Whether an answer on this connection said the setup is wrong yet (logged once at `warning`).
    private let configurationErrorSeen = NIOLockedValueBox(false)

    private struct Outbox {
        var requests: [PendingRequest] = []
        /// The array the last drain emptied, kept with its capacity for the next batch, so a
        /// batch of pushes does not grow a new array from nothing.
        var spare: [PendingRequest] = []
        var drainScheduled = false
    }

    /// Completes when the connection can carry requests (TLS done with ALPN `h2`; at once for
    /// h2c), or fails with why the channel closed first.
    let ready: EventLoopFuture<Void>

    private init(
        channel: any Channel, handler: NIOLoopBound<HTTP2ClientHandler>, number: Int, host: String,
        closeReason: NIOLockedValueBox<APNsTransportError?>, ready: EventLoopFuture<Void>
    ) {
        self.channel = channel
        self.handler = handler
        self.number = number
        self.host = host
        self.closeReason = closeReason
        self.ready = ready
    }

    /// Connects on `eventLoop`. `onUnusable` is called once, from the event loop, when the
    /// connection can take no more requests (GOAWAY, closed, failed). `logger` hears of the
    /// connection's life, with its number and host.
    static func connect(
        to endpoint: APNsEndpoint, sslContext: NIOSSLContext?, on eventLoop: any EventLoop, number: Int,
        idlePing: TimeAmount, logger: Logger, onUnusable: @escaping @Sendable () -> Void
    ) -> EventLoopFuture<APNsConnection> {
        let serverHostname = endpoint.host.isIPAddress ? nil : endpoint.host
        let host = endpoint.hostAndPort
        let closeReason = NIOLockedValueBox<APNsTransportError?>(nil)
        // Completed once, on the event loop; a later completion (the close of a connection that
        // was ready) is ignored.
        let ready = eventLoop.makePromise(of: Void.self)
        let logger = {
            var logger = logger
            logger[metadataKey: "apns-connection"] = "\(number)"
            logger[metadataKey: "apns-host"] = .string(host)
            return logger
        }()
        logger.debug("connecting to APNs", metadata: ["tls": "\(endpoint.tls)"])
        let bootstrap = ClientBootstrap(group: eventLoop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
                        try sync.addHandler(ALPNCheck(host: host, ready: ready))
                    }
                    try sync.addHandler(
                        HTTP2ClientHandler(
                            host: host, authority: endpoint.authority, tls: endpoint.tls, idlePing: idlePing,
                            logger: logger, onUnusable: onUnusable,
                            onClosed: { reason in closeReason.withLockedValue { $0 = $0 ?? reason } }
                        ))
                }
            }
        return bootstrap.connect(host: endpoint.host, port: endpoint.port)
            .flatMapThrowing { channel in
                if sslContext == nil { ready.succeed(()) }
                channel.closeFuture.whenComplete { _ in
                    ready.fail(
                        closeReason.withLockedValue { $0 }
                            ?? APNsTransportError.connectionClosed(host: host, cause: nil))
                }
                let handler = try channel.pipeline.syncOperations.handler(type: HTTP2ClientHandler.self)
                let connection = APNsConnection(
                    channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop), number: number,
                    host: host,
                    closeReason: closeReason, ready: ready.futureResult
                )
                handler.sendWaiting = { [weak connection] in connection?.sendWaitingNow() }
                logger.debug("connected to APNs")
                return connection
            }
            .flatMapErrorThrowing { error in
                let failure = APNsTransportError.connectFailed(
                    host: host, cause: ConnectFailure.cause(of: error) ?? "\(error)")
                ready.fail(failure)
                logger.warning("could not connect to APNs", metadata: ["cause": "\(failure)"])
                throw failure
            }
    }

    /// True the first time an answer on this connection says the setup is wrong.
    func firstConfigurationError() -> Bool {
        configurationErrorSeen.withLockedValue { seen in
            defer { seen = true }
            return !seen
        }
    }

    /// The TLS context for `endpoint`: ALPN `h2`, TLS 1.2 or later, the system's roots or the
    /// given certificates.
    static func sslContext(for endpoint: APNsEndpoint) throws -> NIOSSLContext? {
        guard endpoint.tls else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.applicationProtocols = ["h2"]
        configuration.minimumTLSVersion = .tlsv12
        if let file = endpoint.trustedCertificates {
            configuration.trustRoots = .file(file)
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// Queues a request; with `flush`, makes sure the event loop will write it soon.
    func send(_ pending: PendingRequest, flush: Bool) {
        let schedule = outbox.withLockedValue { outbox -> Bool in
            outbox.requests.append(pending)
            guard flush, !outbox.drainScheduled else { return false }
            outbox.drainScheduled = true
            return true
        }
        if schedule { channel.eventLoop.execute { self.drain() } }
    }

    /// Makes sure the event loop will write what waits in the outbox.
    func flushOutbox() {
        let schedule = outbox.withLockedValue { outbox -> Bool in
            guard !outbox.requests.isEmpty, !outbox.drainScheduled else { return false }
            outbox.drainScheduled = true
            return true
        }
        if schedule { channel.eventLoop.execute { self.drain() } }
    }

    /// On the event loop: sends what waits in the outbox at once, not after the read under way.
    fileprivate func sendWaitingNow() {
        guard outbox.withLockedValue({ !$0.requests.isEmpty }) else { return }
        drain()
    }

    private func drain() {
        var requests = outbox.withLockedValue { outbox -> [PendingRequest] in
            defer { outbox.drainScheduled = false }
            var taken = outbox.spare
            outbox.spare = []
            swap(&taken, &outbox.requests)
            return taken
        }
        defer {
            requests.removeAll(keepingCapacity: true)
            outbox.withLockedValue { outbox in
                if outbox.spare.capacity < requests.capacity { swap(&outbox.spare, &requests) }
            }
        }
        // A closed channel would drop the writes without telling anyone; fail them instead.
        guard channel.isActive else {
            let error =
                closeReason.withLockedValue { $0 } ?? APNsTransportError.connectionClosed(host: host, cause: nil)
            for request in requests { request.complete(.failure(error)) }
            return
        }
        handler.value.send(requests)
    }

    func close() {
        channel.close(promise: nil)
    }
}

/// Refuses a TLS connection on which the server did not agree to HTTP/2; says the connection
/// is ready when it did.
private final class ALPNCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    let host: String
    let ready: EventLoopPromise<Void>

    init(host: String, ready: EventLoopPromise<Void>) {
        self.host = host
        self.ready = ready
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            if negotiated != "h2" {
                let error = APNsTransportError.notHTTP2(host: host, negotiated: negotiated)
                ready.fail(error)
                context.fireErrorCaught(error)
                context.close(promise: nil)
            } else {
                ready.succeed(())
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }
}

extension String {
    /// Whether this is an IPv4 or IPv6 literal (no SNI for those).
    var isIPAddress: Bool {
        if contains(":") { return true }
        let parts = split(separator: ".")
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}
