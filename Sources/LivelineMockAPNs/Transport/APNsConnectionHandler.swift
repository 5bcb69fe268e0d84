import Liveline
import LivelineHTTP2
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks a connection to send GOAWAY `{"reason":"Shutdown"}` and close once its streams are answered.
struct GracefulShutdownEvent: Sendable {}

/// Serves the APNs protocol on one connection: a thin NIO adapter around
/// ``HTTP2ConnectionCore`` (preface, SETTINGS, PING, flow control, CONTINUATION, stream states,
/// protocol errors) plus what is the mock's own: APNs's stream limit (1 until a request carries
/// a valid token; exceeding it gets GOAWAY), request validation, the device simulation, injected
/// faults, and the answers, encoded as HPACK literals (see ``ResponseHeaderEncoder``).
///
/// **Why its own framing.** The first version sat behind `NIOHTTP2Handler`. Measured with
/// h2load, that handler's per-stream state machines, events and HPACK encoding cost about 16 µs
/// per request on its own, a third of nghttpd's rate at best; the benchmark target is half.
///
/// The connection's life (idle, open, going away, closed) is ``StateMachine``'s, a value apart
/// from the I/O; the handler does what its transitions return.
///
/// **Concurrency.** Loop-bound: NIO calls it only on the channel's event loop, so the
/// connection state (streams, the provider token, the strings its bodies repeat, counters, the
/// id generator and the fault dice) needs no lock. Shared state lives in ``MockAPNsState``.
final class APNsConnectionHandler: HTTP2ServerHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A request being received: its head and a body kept up to the payload limit.
    private typealias PendingStream = PendingRequest<RequestHead>

    /// Connection window the mock offers; credit is returned when half is used.
    static let connectionWindow = 1 << 20
    /// How long to wait for in-flight streams after a GOAWAY before closing anyway.
    static let drainTimeout = TimeAmount.seconds(5)
    /// SETTINGS_MAX_HEADER_LIST_SIZE the mock advertises and enforces.
    static let maxHeaderListSize = 16_384

    private let state: MockAPNsState
    private let validator: RequestValidator
    private let maxConcurrentStreams: Int

    // Loop-bound state. Only this connection's event loop touches it and never re-entrantly,
    // so the dynamic exclusivity checks Swift would add to every access (measured at ~4% of a
    // request) are turned off with `@exclusivity(unchecked)`.

    @exclusivity(unchecked) private var core: HTTP2ConnectionCore
    @exclusivity(unchecked) var output = ByteBuffer()
    @exclusivity(unchecked) private var streams: [UInt32: PendingStream] = [:]
    @exclusivity(unchecked) private var auth = ConnectionAuthState()
    @exclusivity(unchecked) private var strings = JSONStringCache()
    @exclusivity(unchecked) private var ids = RequestIDGenerator()
    @exclusivity(unchecked) private var random: SplitMix64
    @exclusivity(unchecked) private var requests = 0
    @exclusivity(unchecked) private var machine = StateMachine()

    init(state: MockAPNsState, validator: RequestValidator, maxConcurrentStreams: Int, connectionNumber: UInt64) {
        self.state = state
        self.validator = validator
        self.maxConcurrentStreams = maxConcurrentStreams
        random = SplitMix64(seed: state.faults().seed &* 0x9E37_79B9_7F4A_7C15 &+ connectionNumber)
        // APNs advertises one stream until a request carries a valid token (docs/apns.md §5).
        var settings = ConnectionSettings()
        settings.maxConcurrentStreams = 1
        settings.maxHeaderListSize = Self.maxHeaderListSize
        core = HTTP2ConnectionCore(
            role: .server, settings: settings, connectionWindow: Self.connectionWindow,
            maxHeaderListSize: Self.maxHeaderListSize)
    }

    func connectionOpened(context: ChannelHandlerContext) {
        guard machine.opened() else { return }
        state.connectionOpened()
        core.start(into: &output)
        flushOutput(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if machine.closed() { state.connectionClosed() }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !machine.isClosed else { return }
        core.append(unwrapInboundIn(data))
        do throws(HTTP2ProtocolError) {
            while let event = try core.nextEvent(into: &output) {
                guard handle(event, context: context) else { return }
            }
        } catch {
            if error == .badPreface {
                // Not HTTP/2 with prior knowledge: nothing useful can be said; hang up.
                if machine.closed() { state.connectionClosed() }
                context.close(promise: nil)
            } else {
                connectionError(error.code, reason: error.why, context: context)
            }
            return
        }
        // WINDOW_UPDATE may have let the last waiting answer go.
        closeIfDrained(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is GracefulShutdownEvent {
            goAway(reason: "Shutdown", code: .noError, context: context)
            flushOutput(context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Events

    /// Handles one event from the core; false when the connection is finished.
    private func handle(_ event: HTTP2Event, context: ChannelHandlerContext) -> Bool {
        switch event {
        case .headers(let streamID, let headers, let endStream, let opened):
            return receiveHeaders(
                streamID: streamID, headers: headers, endStream: endStream, opened: opened, context: context)
        case .data(let streamID, let bytes, let endStream):
            receiveData(streamID: streamID, bytes: bytes, endStream: endStream, context: context)
            return true
        case .streamReset(let streamID, _), .streamError(_, let streamID):
            streams[streamID] = nil
            closeIfDrained(context: context)
            return !machine.isClosed
        case .goAway, .peerSettingsChanged, .localSettingsAcknowledged:
            return true
        }
    }

    private func receiveHeaders(
        streamID: UInt32, headers: HeaderFields, endStream: Bool, opened: Bool, context: ChannelHandlerContext
    ) -> Bool {
        guard opened else {
            // Trailers end the request.
            guard endStream else {
                return connectionError(.protocolError, reason: "TrailersWithoutEndStream", context: context)
            }
            if let stream = streams.removeValue(forKey: streamID) {
                finish(stream, streamID: streamID, context: context)
            }
            return true
        }
        // The limit the client has acknowledged; until then RFC 9113 leaves it unlimited.
        guard core.streams.count <= core.localSettings.maxConcurrentStreams ?? Int.max else {
            core.decline(streamID)
            return connectionError(.protocolError, reason: "TooManyConcurrentStreams", context: context)
        }
        let head = RequestHead(headers)
        let limit =
            head.path?.utf8.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "4"), UInt8(ascii: "/")]) == true
            ? PayloadLimits.broadcast : PayloadLimits.device
        let stream = PendingStream(head: head, limit: limit)
        if endStream {
            finish(stream, streamID: streamID, context: context)
        } else {
            streams[streamID] = stream
        }
        return true
    }

    private func receiveData(streamID: UInt32, bytes: ByteBuffer, endStream: Bool, context: ChannelHandlerContext) {
        if endStream {
            // The common case: the body's last (often only) frame.
            guard var stream = streams.removeValue(forKey: streamID) else { return }
            stream.append(bytes)
            finish(stream, streamID: streamID, context: context)
            return
        }
        guard let index = streams.index(forKey: streamID) else { return }
        streams.values[index].append(bytes)
        let stream = streams.values[index]
        if stream.size > stream.limit {
            // Answer now instead of waiting for a body that may not fit the stream window.
            streams.remove(at: index)
            answerTooLarge(streamID, head: stream.head, context: context)
        }
    }

    // MARK: Requests

    private func finish(_ stream: PendingStream, streamID: UInt32, context: ChannelHandlerContext) {
        requests += 1
        let faults = state.connectionFaults()
        if let every = faults.resetEvery, every > 0, requests % every == 0 {
            state.connectionReset()
            resetConnection(context: context)
            return
        }
        let now = state.clock.now()
        let body = RequestValidator.Body(buffer: stream.body, size: stream.size)
        let hadValidToken = auth.hasValidToken
        var response: StreamResponse
        var directive = ConnectionDirective.none
        switch validator.validate(stream.head, body: body, auth: &auth, strings: &strings, now: now) {
        case .failure(let error):
            let isDevicePath = Self.isDevicePath(stream.head.path)
            let id = isDevicePath ? (validID(stream.head.apnsID) ?? ids.next()) : (stream.head.requestID ?? ids.next())
            let headers = isDevicePath ? [("apns-id", id)] : [("apns-request-id", id)]
            response = .error(error, headers: headers, now: now)
            state.recordRejected(
                error, token: deviceToken(stream.head.path), id: id,
                priority: stream.head.priority == "5" ? 5 : 10, payload: body.text)
        case .success(.device(let push)):
            let id = push.apnsID ?? ids.next()
            let answer = state.handleDevice(
                push, idHeaders: [("apns-id", id), ("apns-unique-id", ids.next())], id: id, roll: random.nextUnit())
            (response, directive) = (answer.response, answer.directive)
        case .success(.broadcast(let push)):
            let answer = state.handleBroadcast(push, requestID: push.requestID ?? ids.next(), roll: random.nextUnit())
            (response, directive) = (answer.response, answer.directive)
        case .success(let channelRequest):
            response = state.handleChannelRequest(channelRequest, requestID: stream.head.requestID ?? ids.next())
        }
        if !hadValidToken, auth.hasValidToken, machine.validTokenSeen() {
            core.sendSettings([(.maxConcurrentStreams, UInt32(clamping: maxConcurrentStreams))], into: &output)
        }
        if case .none = directive, let every = faults.goAwayEvery, every > 0, requests % every == 0 {
            directive = .goAway(reason: "Shutdown")
            state.goAwaySent(injected: true)
        } else if case .goAway = directive {
            state.goAwaySent(injected: true)
        }
        let delay = faults.latency?.sample(&random) ?? 0
        if delay > 0 {
            // The stream stays half-closed in the core until answered, so it still counts
            // against the stream limit and the drain.
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let contextBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let response = response
            let directive = directive
            context.eventLoop.scheduleTask(in: .milliseconds(delay)) {
                let handler = loopBound.value
                let context = contextBound.value
                guard !handler.machine.isClosed else { return }
                handler.write(response, streamID: streamID)
                handler.apply(directive, context: context)
                handler.flushOutput(context: context)
                handler.closeIfDrained(context: context)
            }
        } else {
            write(response, streamID: streamID)
            apply(directive, context: context)
        }
    }

    private func answerTooLarge(_ streamID: UInt32, head: RequestHead, context: ChannelHandlerContext) {
        requests += 1
        let now = state.clock.now()
        let isDevicePath = Self.isDevicePath(head.path)
        let id = isDevicePath ? (validID(head.apnsID) ?? ids.next()) : (head.requestID ?? ids.next())
        let response = StreamResponse.error(
            .payloadTooLarge, headers: [(isDevicePath ? "apns-id" : "apns-request-id", id)], now: now)
        state.recordRejected(
            .payloadTooLarge, token: deviceToken(head.path), id: id,
            priority: head.priority == "5" ? 5 : 10, payload: "")
        write(response, streamID: streamID)
        // The response is complete; ask the client to stop sending the body (RFC 9113 §8.1).
        core.reset(streamID: streamID, code: .noError, into: &output)
    }

    /// Writes a response; the core holds back body bytes the peer's windows do not allow yet.
    /// Nothing is written for a stream the client reset meanwhile.
    private func write(_ response: StreamResponse, streamID: UInt32) {
        core.writeResponse(streamID: streamID, body: response.body, into: &output) { block in
            ResponseHeaderEncoder.encode(status: response.status, fields: response.headers, into: &block)
        }
    }

    private func apply(_ directive: ConnectionDirective, context: ChannelHandlerContext) {
        if case .goAway(let reason) = directive {
            goAway(reason: reason, code: .noError, context: context)
        }
    }

    // MARK: Connection control

    /// Sends GOAWAY with `{"reason": …}`; the connection closes once in-flight streams are answered.
    private func goAway(reason: String, code: HTTP2Wire.ErrorCode, context: ChannelHandlerContext) {
        switch machine.goAway() {
        case .sendGoAway:
            core.goAway(code, debug: Self.reasonJSON(reason), into: &output)
            let channel = context.channel
            context.eventLoop.scheduleTask(in: Self.drainTimeout) { channel.close(promise: nil) }
            closeIfDrained(context: context)
        case .close:
            context.close(promise: nil)
        case .ignore:
            break
        }
    }

    /// A protocol error: GOAWAY with the error code and a JSON reason, then close. Returns false.
    @discardableResult
    private func connectionError(_ code: HTTP2Wire.ErrorCode, reason: String, context: ChannelHandlerContext) -> Bool {
        guard let ending = machine.connectionError() else { return false }
        if ending.sendGoAway { core.goAway(code, debug: Self.reasonJSON(reason), into: &output) }
        if ending.countClosed { state.connectionClosed() }
        closeAfterOutput(context: context)
        return false
    }

    private func closeIfDrained(context: ChannelHandlerContext) {
        guard machine.closeIfDrained(openStreams: core.streams.count) else { return }
        state.connectionClosed()
        closeAfterOutput(context: context)
    }

    private func resetConnection(context: ChannelHandlerContext) {
        if machine.closed() { state.connectionClosed() }
        let channel = context.channel
        guard let provider = channel as? SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        // SO_LINGER 0 makes close send a TCP RST instead of a FIN.
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private static func reasonJSON(_ reason: String) -> [UInt8] {
        var body: [UInt8] = Array(#"{"reason":"#.utf8)
        JSONValue.writeString(reason, into: &body)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// Whether errors carry `apns-id` (device endpoint and unknown paths) rather than `apns-request-id`.
    private static func isDevicePath(_ path: String?) -> Bool {
        guard let path else { return true }
        return !(path.hasPrefix("/4/") || path.hasPrefix("/1/"))
    }

    private func validID(_ id: String?) -> String? {
        guard let id, RequestValidator.isCanonicalUUID(id) else { return nil }
        return id
    }

    /// The hex token in a `/3/device/<token>` path, lowercased, if there is one.
    private func deviceToken(_ path: String?) -> String? {
        guard let path, let token = RequestValidator.deviceToken(in: path), token.utf8.allSatisfy(\.isHexDigit) else {
            return nil
        }
        return RequestValidator.lowercasedHex(token)
    }
}
