import LivelineCore
import LivelineHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Speaks HTTP/2 to APNs on one connection: a thin NIO adapter around `HTTP2ConnectionCore`
/// (which keeps the protocol's rules: SETTINGS, PING, flow control, CONTINUATION, stream
/// states, GOAWAY) plus what is the client's own:
///
/// - writes each request as HEADERS (see `RequestHeaderEncoder`) and DATA;
/// - keeps to the server's `SETTINGS_MAX_CONCURRENT_STREAMS` (APNs starts at 1 until a request
///   carries a valid token), queueing the rest;
/// - assembles each answer (status, `apns-*` headers, JSON body) and completes its request;
/// - after GOAWAY, fails the requests the server never processed so they can go elsewhere, and
///   closes once the rest are answered;
/// - times requests out and PINGs when idle;
/// - fails requests with what went wrong (``APNsTransportError``): the TLS problem, the GOAWAY
///   code and reason, the protocol error, or why the connection closed.
///
/// The connection's life (connecting, open, going away, closing, closed) and what each event
/// means for the requests is `StateMachine`'s, a value apart from the I/O; the handler does
/// what its transitions return.
///
/// It frames HTTP/2 itself, on the bytes under TLS, instead of running `NIOHTTP2Handler`: the
/// general stream machinery cost more per push than the request itself (see BENCHMARKS.md,
/// "APNs client"). Frames produced during one event-loop turn are collected in one buffer and
/// written once.
///
/// **Concurrency.** Loop-bound: NIO calls it only on its channel's event loop, so its state
/// needs no lock. Other threads reach it through `APNsConnection`, whose outbox hands it
/// requests on the event loop (``send(_:)``), or by writing a `PendingRequest` to the channel.
final class HTTP2ClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = PendingRequest
    typealias OutboundOut = ByteBuffer

    /// A request in flight and its answer so far.
    private struct Exchange {
        var pending: PendingRequest
        var status = 0
        var headers: HeaderFields?
        var body: ByteBuffer?

        /// Keeps a final (non-1xx) header block's status and fields; informational ones are skipped.
        mutating func receive(_ headers: HeaderFields) {
            guard let status = headers.first(name: ":status").flatMap({ Int($0) }), status >= 200 else { return }
            self.status = status
            self.headers = headers
        }

        /// The answer's `apns-*` fields and `retry-after`, in one pass over the block (names compared without
        /// regard to ASCII case, the first of each kept), instead of a search for each.
        func read(into response: inout APNsResponse) {
            guard let headers else { return }
            for (name, value) in headers {
                // Only names of the lengths of those five that start with their letter (any case)
                // are compared; ":status" is not. The lowercase names HTTP/2 requires compare as they
                // are; a name with capitals is lowercased and compared again.
                let utf8 = name.utf8
                let length = utf8.count
                guard length == 7 || length == 11 || length == 14 || length == 15, let first = utf8.first,
                    first | 0x20 == UInt8(ascii: "a") || (length == 11 && first | 0x20 == UInt8(ascii: "r"))
                else { continue }
                if !Self.keep(name, value, in: &response), utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) {
                    Self.keep(name.lowercased(), value, in: &response)
                }
            }
        }

        /// Keeps `value` if `name` (lowercase) is one of the answer's `apns-*` fields and the
        /// first of its name; false when the name is none of them.
        @discardableResult
        private static func keep(_ name: String, _ value: String, in response: inout APNsResponse) -> Bool {
            switch name {
            case "apns-id": if response.apnsID == nil { response.apnsID = value }
            case "apns-unique-id": if response.uniqueID == nil { response.uniqueID = value }
            case "apns-channel-id": if response.channelID == nil { response.channelID = value }
            case "apns-request-id": if response.requestID == nil { response.requestID = value }
            case "retry-after": if response.retryAfter == nil { response.retryAfter = value }
            default: return false
            }
            return true
        }
    }

    /// The receive window the client offers, for the connection and each stream.
    static let receiveWindow = 1 << 20
    /// Streams the server may open toward us: none (server push is off).
    static let advertisedMaxStreams = 100

    private let host: String
    /// How long the connection may be idle before it PINGs.
    private let idlePing: Duration
    /// Told when the connection can take no more requests (GOAWAY or closed), once.
    private let onUnusable: @Sendable () -> Void
    /// Connection events: GOAWAY, stream limits, failures. Nothing per request.
    private let logger: Logger

    /// What every request and answer touches, in one value: each step of the hot path (start a
    /// request, take the next event) costs one dynamic exclusivity check on the handler's
    /// storage instead of one per property it touches (a class's stored properties are checked
    /// at run time; the fields of one struct reached through one access are not).
    private struct Wire {
        var core: HTTP2ConnectionCore
        var encoder = RequestHeaderEncoder()
        /// Frames waiting for the next flush.
        var out = ByteBuffer()
        var exchanges: [UInt32: Exchange] = [:]
        let scheme: String
        let authority: String

        /// Opens a stream for `pending` and writes its HEADERS and body (as the windows allow);
        /// false when stream ids ran out. Calls nothing outside the connection.
        mutating func start(_ pending: PendingRequest) -> Bool {
            guard let streamID = core.openStream() else { return false }
            let authorization = pending.authorization
            switch pending.request.content {
            case .devicePush(_, _, let payload, _):
                // The payload goes from its array straight into the frame.
                core.writeHeaders(streamID: streamID, endStream: payload.isEmpty, into: &out) { block in
                    encoder.encode(
                        pending.request, scheme: scheme, authority: authority, authorization: authorization,
                        into: &block)
                }
                if !payload.isEmpty { core.writeData(streamID: streamID, bytes: payload, endStream: true, into: &out) }
            case .general(_, _, let body):
                let body = body.flatMap { $0.readableBytes > 0 ? $0 : nil }
                core.writeHeaders(streamID: streamID, endStream: body == nil, into: &out) { block in
                    encoder.encode(
                        pending.request, scheme: scheme, authority: authority, authorization: authorization,
                        into: &block)
                }
                if let body { core.writeData(streamID: streamID, body, endStream: true, into: &out) }
            }
            exchanges[streamID] = Exchange(pending: pending)
            return true
        }

        mutating func nextEvent() throws(HTTP2ProtocolError) -> HTTP2Event? {
            try core.nextEvent(into: &out)
        }

        mutating func startConnection() {
            core.start(into: &out)
        }

        mutating func goAway(_ code: HTTP2Wire.ErrorCode, debug: [UInt8]) {
            core.goAway(code, debug: debug, into: &out)
        }

        mutating func reset(streamID: UInt32, code: HTTP2Wire.ErrorCode) {
            core.reset(streamID: streamID, code: code, into: &out)
        }
    }

    private var wire: Wire
    /// Where the connection is in its life, the server's stream limit, when it was last busy.
    private var machine: StateMachine
    /// This handler's place in the pipeline, while it is in one: ``send(_:)`` writes through it.
    private var context: ChannelHandlerContext?
    /// Requests that wait: for the connection to come up (the connect future can complete
    /// before `channelActive` reaches this handler), or for a free stream.
    private var queued = CircularBuffer<PendingRequest>()
    private var sweep: RepeatedTask?
    /// Answers handled since the last write.
    private var answeredSinceWrite = 0
    /// Sends what waits in the connection's outbox now. Called part-way through a read that
    /// answers many requests, so the requests those answers freed reach the server while the
    /// rest are handled: otherwise the server answers the whole window at once, the client
    /// reads it at once and sends the next window at once, and the two take turns instead of
    /// working together. Set by the connection, on the event loop.
    var sendWaiting: (() -> Void)?
    /// How many answers make a write part-way through a read.
    static let answersPerEarlyWrite = 16

    /// Told why the connection closed, once, so requests that come later fail with the cause.
    private let onClosed: @Sendable (APNsTransportError) -> Void

    /// `host` is `host:port` as the user gave it, for messages.
    init(
        host: String, authority: String, tls: Bool, idlePing: TimeAmount, logger: Logger,
        onUnusable: @escaping @Sendable () -> Void,
        onClosed: @escaping @Sendable (APNsTransportError) -> Void = { _ in }
    ) {
        self.onClosed = onClosed
        self.host = host
        self.idlePing = .nanoseconds(idlePing.nanoseconds)
        self.logger = logger
        self.onUnusable = onUnusable
        machine = StateMachine(host: host, tls: tls, now: .now)
        var settings = ConnectionSettings()
        settings.enablePush = false
        settings.maxConcurrentStreams = Self.advertisedMaxStreams
        settings.initialWindowSize = Self.receiveWindow
        // An answer's only unindexed literal is its fresh apns-id: nothing to cache.
        wire = Wire(
            core: HTTP2ConnectionCore(
                role: .client, settings: settings, connectionWindow: Self.receiveWindow, cachesLiterals: false),
            scheme: tls ? "https" : "http", authority: authority
        )
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        wire.out = context.channel.allocator.buffer(capacity: 16_384)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let contextBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        sweep = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) {
            _ in
            loopBound.value.sweepTimeouts(context: contextBound.value)
        }
        if context.channel.isActive { begin(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        sweep?.cancel()
        closed()
    }

    func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
        context.fireChannelActive()
    }

    private func begin(context: ChannelHandlerContext) {
        guard machine.activate() else { return }
        wire.startConnection()
        startQueued()
        writeOut(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let cause = closed()
        logger.debug("APNs connection closed", metadata: ["cause": "\(cause)"])
        onClosed(cause)
        context.fireChannelInactive()
    }

    /// The channel is gone: every request still here fails with the first cause known.
    @discardableResult
    private func closed() -> APNsTransportError {
        let closing = machine.channelClosed()
        if closing.reportUnusable { onUnusable() }
        failAll(closing.error)
        return closing.error
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { machine.handshakeCompleted() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch machine.errorCaught(Self.sort(error)) {
        case .close(let reportUnusable):
            if reportUnusable {
                onUnusable()
                logger.warning("APNs connection failed", metadata: ["cause": "\(machine.closeCause)"])
            }
            context.close(promise: nil)
        case .ignore:
            break
        }
    }

    /// A TLS, socket or pipeline error, sorted for `StateMachine.errorCaught(_:)`.
    private static func sort(_ error: any Error) -> StateMachine.CaughtError {
        if let transport = error as? APNsTransportError { return .transport(transport) }
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            return .tls(reason: tlsReason(error), text: "\(error)")
        }
        return .other("\(error)")
    }

    /// BoringSSL's reason codes (`CERTIFICATE_VERIFY_FAILED`) out of NIOSSL's error text, which
    /// also carries error numbers and the build path of the C source; the whole text otherwise.
    static func tlsReason(_ error: any Error) -> String {
        let text = "\(error)"
        var reasons: [Substring] = []
        var rest = text[...]
        while let marker = rest.range(of: "OPENSSL_internal:") {
            let tail = rest[marker.upperBound...]
            let code = tail.prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            if !code.isEmpty, !reasons.contains(code) { reasons.append(code) }
            rest = tail.dropFirst(code.count)
        }
        guard !reasons.isEmpty else { return text }
        return reasons.joined(separator: ", ")
    }

    // MARK: Sending

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        promise?.succeed()
        machine.noteActivity(at: .now)
        accept(unwrapOutboundIn(data))
    }

    /// Takes requests from the connection's outbox, on the event loop, as if each had been
    /// written to the channel and the channel flushed: without a trip through the pipeline and
    /// a boxed `NIOAny` for each. Their frames go out in one write.
    func send(_ requests: [PendingRequest]) {
        guard let context else {
            let failure = machine.failure
            for pending in requests { pending.complete(.failure(failure)) }
            return
        }
        machine.noteActivity(at: .now)
        for pending in requests { accept(pending) }
        writeOut(context: context)
    }

    /// Starts a request, queues it until a stream is free, or fails it when the connection is
    /// going away.
    private func accept(_ pending: PendingRequest) {
        let openStreams = wire.core.streams.count
        let othersWaiting = !queued.isEmpty
        switch inPlace({ $0.admit(openStreams: openStreams, othersWaiting: othersWaiting) }) {
        case .start: start(pending)
        case .wait: queued.append(pending)
        case .fail(let error): pending.complete(.failure(error))
        }
    }

    func flush(context: ChannelHandlerContext) {
        writeOut(context: context)
    }

    /// Hands the collected frames to TLS and the socket, in one write.
    private func writeOut(context: ChannelHandlerContext) {
        guard wire.out.readableBytes > 0 else { return }
        answeredSinceWrite = 0
        let frames = wire.out
        wire.out = context.channel.allocator.buffer(capacity: 16_384)
        context.writeAndFlush(wrapOutboundOut(frames), promise: nil)
    }

    /// Opens a stream for `pending`: HEADERS, then the body as the windows allow.
    private func start(_ pending: PendingRequest) {
        guard wire.start(pending) else {
            // Stream ids are 31-bit; when they run out, the connection retires.
            retire(machine.streamIDsExhausted(), failing: pending)
            return
        }
    }

    /// `body` on the state machine where it is, under one modify access. A call that only reads
    /// `machine` (a class's stored value, its exclusivity checked at run time) copies the whole
    /// value out first, its host and errors retained and released; the request path asks it
    /// something for every request, so it asks here.
    private func inPlace<Answer>(_ body: (inout StateMachine) -> Answer) -> Answer {
        body(&machine)
    }

    private func startQueued() {
        guard !queued.isEmpty else { return }
        machine.noteActivity(at: .now)
        while inPlace({ [streams = wire.core.streams.count] in $0.mayStart(openStreams: streams) }),
            let next = queued.popFirst()
        {
            start(next)
        }
    }

    // MARK: Receiving

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        wire.core.append(unwrapInboundIn(data))
        machine.noteActivity(at: .now)
        do throws(HTTP2ProtocolError) {
            while machine.readsFrames, let event = try wire.nextEvent() {
                handle(event)
                if answeredSinceWrite >= Self.answersPerEarlyWrite, let sendWaiting {
                    answeredSinceWrite = 0
                    sendWaiting()
                }
            }
        } catch {
            fail(context: context, error)
        }
        startQueued()
        closeIfDrained(context: context)
    }

    /// Closes a connection that is going away once nothing is left in flight.
    private func closeIfDrained(context: ChannelHandlerContext) {
        guard machine.closeIfDrained(inFlight: wire.exchanges.count + queued.count) else { return }
        logger.debug("APNs connection drained after GOAWAY; closing")
        writeOut(context: context)
        context.close(promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        writeOut(context: context)
        context.fireChannelReadComplete()
    }

    private func handle(_ event: HTTP2Event) {
        switch event {
        case .headers(let streamID, let headers, let endStream, _):
            // One lookup: an answer without a body (any 200) ends with its headers.
            if endStream {
                guard var exchange = wire.exchanges.removeValue(forKey: streamID) else { return }
                exchange.receive(headers)
                complete(exchange)
            } else if let index = wire.exchanges.index(forKey: streamID) {
                wire.exchanges.values[index].receive(headers)
            }
        case .data(let streamID, var bytes, let endStream):
            guard let index = wire.exchanges.index(forKey: streamID) else { return }
            if wire.exchanges.values[index].body == nil {
                wire.exchanges.values[index].body = bytes
            } else {
                wire.exchanges.values[index].body?.writeBuffer(&bytes)
            }
            if endStream { complete(wire.exchanges.remove(at: index).value) }
        case .streamReset(let streamID, let code):
            wire.exchanges.removeValue(forKey: streamID)?.pending.complete(
                .failure(APNsTransportError.streamReset(host: host, code: HTTP2Wire.ErrorCode.name(code))))
        case .streamError(let error, let streamID):
            wire.exchanges.removeValue(forKey: streamID)?.pending.complete(
                .failure(APNsTransportError.protocolError(host: host, detail: error.description)))
        case .goAway(let frame, let abandoned):
            receiveGoAway(frame, abandoned: abandoned)
        case .peerSettingsChanged:
            let peerSettings = wire.core.peerSettings
            wire.encoder.setTableSizeLimit(peerSettings.headerTableSize)
            if let change = machine.peerSettingsChanged(maxConcurrentStreams: peerSettings.maxConcurrentStreams) {
                logger.debug(
                    "APNs changed the stream limit", metadata: ["from": "\(change.from)", "to": "\(change.to)"])
            }
        case .localSettingsAcknowledged:
            break
        }
    }

    private func receiveGoAway(_ frame: GoAwayFrame, abandoned: [UInt32]) {
        let retirement = machine.goAwayReceived(code: frame.errorName, debugText: frame.debugText)
        let level: Logger.Level = frame.errorCode == HTTP2Wire.ErrorCode.noError.rawValue ? .notice : .warning
        if logger.logLevel <= level {
            var metadata: Logger.Metadata = [
                "code": .string(frame.errorName), "last-stream-id": "\(frame.lastStreamID)",
                "abandoned": "\(abandoned.count + queued.count)",
            ]
            if let text = frame.debugText { metadata["debug-data"] = .string(String(text.prefix(512))) }
            logger.log(level: level, "APNs sent GOAWAY", metadata: metadata)
        }
        for streamID in abandoned {
            wire.exchanges.removeValue(forKey: streamID)?.pending.complete(.failure(retirement.error))
        }
        retire(retirement, failing: nil)
    }

    /// The connection takes no more requests: tells the pool (once) and fails what waits.
    private func retire(_ retirement: StateMachine.Retirement, failing pending: PendingRequest?) {
        if retirement.reportUnusable { onUnusable() }
        pending?.complete(.failure(retirement.error))
        while let next = queued.popFirst() { next.complete(.failure(retirement.error)) }
    }

    private func complete(_ exchange: Exchange) {
        answeredSinceWrite += 1
        var response = APNsResponse(status: exchange.status)
        exchange.read(into: &response)
        if let body = exchange.body, body.readableBytes > 0 {
            let bytes = Array(body.readableBytesView)
            response.body = bytes
            if !response.isSuccess, case .object(let object)? = try? JSONParser.parse(bytes) {
                if case .string(let reason)? = object["reason"] { response.reason = APNsReason(rawValue: reason) }
                if case .int(let timestamp)? = object["timestamp"] { response.timestamp = Int64(timestamp) }
            }
        }
        if exchange.status == 0 {
            exchange.pending.complete(
                .failure(APNsTransportError.protocolError(host: host, detail: "the stream ended without a status")))
        } else {
            exchange.pending.complete(.success(response))
        }
    }

    // MARK: Housekeeping

    /// Ends the connection after the server broke the protocol; its requests fail with why.
    private func fail(context: ChannelHandlerContext, _ error: HTTP2ProtocolError) {
        guard case .goAwayAndClose(let failure, let reportUnusable) = machine.protocolError(detail: error.description)
        else { return }
        logger.warning("APNs broke HTTP/2; closing the connection", metadata: ["error": "\(error)"])
        if reportUnusable { onUnusable() }
        wire.goAway(error.code, debug: Array(error.why.utf8))
        writeOut(context: context)
        failAll(failure)
        context.close(promise: nil)
    }

    private func sweepTimeouts(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        for (id, exchange) in wire.exchanges where exchange.pending.deadline < now {
            wire.exchanges[id] = nil
            wire.reset(streamID: id, code: .cancel)
            exchange.pending.complete(.failure(APNsTransportError.timedOut(host: host)))
        }
        if queued.contains(where: { $0.deadline < now }) {
            var kept = CircularBuffer<PendingRequest>()
            while let next = queued.popFirst() {
                if next.deadline < now {
                    next.complete(.failure(APNsTransportError.timedOut(host: host)))
                } else {
                    kept.append(next)
                }
            }
            queued = kept
        }
        if machine.pingIfIdle(now: .now, interval: idlePing) {
            HTTP2Wire.ping(UInt64(now.uptimeNanoseconds), ack: false, into: &wire.out)
        }
        startQueued()
        closeIfDrained(context: context)
        writeOut(context: context)
    }

    private func failAll(_ error: APNsTransportError) {
        let failed = wire.exchanges
        wire.exchanges = [:]
        for exchange in failed.values { exchange.pending.complete(.failure(error)) }
        while let next = queued.popFirst() { next.complete(.failure(error)) }
    }
}
