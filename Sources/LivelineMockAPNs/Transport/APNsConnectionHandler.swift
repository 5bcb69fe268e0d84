import Liveline
import NIOCore
import NIOHPACK
import NIOHTTP2

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks a connection to send GOAWAY `{"reason":"Shutdown"}` and close once its streams are answered.
struct GracefulShutdownEvent: Sendable {}

/// Serves the APNs protocol on one HTTP/2 connection, frame by frame.
///
/// It sits right after `NIOHTTP2Handler`, which runs without a stream multiplexer: instead of
/// one child channel per stream (measured as the dominant cost per request), this handler
/// collects each stream's HEADERS and DATA itself and answers on the same connection. It also
/// does what the multiplexer would have: it returns connection flow-control credit.
///
/// **Concurrency.** Everything here is loop-bound: NIO calls it only on the channel's event
/// loop, so its per-connection state (open streams, the provider token, counters, the id
/// generator and the fault dice) needs no lock. Shared state lives in ``MockAPNsState``.
final class APNsConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// A request being received.
    private struct PendingStream {
        var head: RequestHead
        var body: ByteBuffer?
        var size = 0
        var limit: Int
        /// Answered early (413) while the body was still arriving.
        var answered = false

        /// Adds a DATA frame's bytes; keeps them only while within the limit. Returns true.
        mutating func append(_ buffer: ByteBuffer) -> Bool {
            size += buffer.readableBytes
            guard !answered else { return true }
            if size > limit {
                body = nil
            } else if body == nil {
                body = buffer
            } else {
                var copy = buffer
                body?.writeBuffer(&copy)
            }
            return true
        }

        /// Whether the body has outgrown the limit and was not answered yet; marks it answered.
        mutating func shouldAnswerTooLarge() -> Bool {
            guard !answered, size > limit else { return false }
            answered = true
            return true
        }
    }

    /// Connection window the mock offers; credit is returned when half is used.
    static let connectionWindow = 1 << 20
    /// How long to wait for in-flight streams after a GOAWAY before closing anyway.
    static let drainTimeout = TimeAmount.seconds(5)

    private let state: MockAPNsState
    private let validator: RequestValidator
    private let maxConcurrentStreams: Int
    private var streams: [HTTP2StreamID: PendingStream] = [:]
    private var auth = ConnectionAuthState()
    private var ids = RequestIDGenerator()
    private var random: SplitMix64
    private var requests = 0
    private var raisedStreamLimit = false
    private var delayedResponses = 0
    private var consumedWindow = 0
    private var highestStreamID = HTTP2StreamID.rootStream
    private var goingAway = false
    private var closed = false

    init(state: MockAPNsState, validator: RequestValidator, maxConcurrentStreams: Int, connectionNumber: UInt64) {
        self.state = state
        self.validator = validator
        self.maxConcurrentStreams = maxConcurrentStreams
        random = SplitMix64(seed: state.faults().seed &* 0x9E37_79B9_7F4A_7C15 &+ connectionNumber)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    private func opened(context: ChannelHandlerContext) {
        state.connectionOpened()
        let increment = Self.connectionWindow - 65_535
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !closed {
            closed = true
            state.connectionClosed()
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            if streams[frame.streamID] != nil {
                // Trailers end the request.
                if headers.endStream, let stream = streams.removeValue(forKey: frame.streamID) {
                    finish(stream, streamID: frame.streamID, context: context)
                }
                return
            }
            if goingAway, frame.streamID > highestStreamID {
                context.write(wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: .rstStream(.refusedStream))), promise: nil)
                return
            }
            if frame.streamID > highestStreamID { highestStreamID = frame.streamID }
            let head = RequestHead(headers.headers)
            let limit = head.path?.hasPrefix("/4/") == true ? PayloadLimits.broadcast : PayloadLimits.device
            let stream = PendingStream(head: head, limit: limit)
            if headers.endStream {
                finish(stream, streamID: frame.streamID, context: context)
            } else {
                streams[frame.streamID] = stream
            }
        case .data(let payload):
            returnCredit(payload.data.readableBytes, context: context)
            guard case .byteBuffer(let buffer) = payload.data else { return }
            if payload.endStream {
                // The common case: the body's last (often only) frame. No write-back needed.
                guard var stream = streams.removeValue(forKey: frame.streamID) else { return }
                _ = stream.append(buffer)
                finish(stream, streamID: frame.streamID, context: context)
                return
            }
            guard streams[frame.streamID]?.append(buffer) == true else { return }
            if streams[frame.streamID]?.shouldAnswerTooLarge() == true, let head = streams[frame.streamID]?.head {
                // Answer now instead of waiting for a body that may not fit the stream window.
                answerTooLarge(frame.streamID, head: head, context: context)
            }
        case .rstStream:
            streams[frame.streamID] = nil
            closeIfDrained(context: context)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // NIOHTTP2Handler reports stream creation, closure and window changes here on every
        // request; this is the last handler, so they stop here.
        if event is GracefulShutdownEvent {
            goAway(reason: "Shutdown", errorCode: .noError, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.MaxStreamsViolation {
            // NIOHTTP2Handler has already sent its own GOAWAY (no debug data) for this
            // connection error; this one adds APNs's JSON reason, then the connection closes.
            goAway(reason: "TooManyConcurrentStreams", errorCode: .protocolError, context: context, closeNow: true)
            return
        }
        if error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.NoSuchStream { return }
        context.close(promise: nil)
    }

    // MARK: Requests

    private func returnCredit(_ bytes: Int, context: ChannelHandlerContext) {
        consumedWindow += bytes
        guard consumedWindow >= Self.connectionWindow / 2 else { return }
        let increment = consumedWindow
        consumedWindow = 0
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
    }

    private func finish(_ stream: PendingStream, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        if stream.answered {
            closeIfDrained(context: context)
            return
        }
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
        var response: APNsResponse
        var directive = ConnectionDirective.none
        switch validator.validate(stream.head, body: body, auth: &auth, now: now) {
        case .failure(let error):
            let isDevicePath = Self.isDevicePath(stream.head.path)
            let id = isDevicePath ? (validID(stream.head.apnsID) ?? ids.next()) : (stream.head.requestID ?? ids.next())
            let headers = isDevicePath ? [("apns-id", id)] : [("apns-request-id", id)]
            response = .error(error, headers: headers, now: now)
            state.recordRejected(error, token: deviceToken(stream.head.path), id: id,
                                 payload: body.text)
        case .success(.device(let push)):
            let id = push.apnsID ?? ids.next()
            (response, directive) = state.handleDevice(
                push, idHeaders: [("apns-id", id), ("apns-unique-id", ids.next())], id: id, roll: random.nextUnit())
        case .success(.broadcast(let push)):
            (response, directive) = state.handleBroadcast(push, requestID: push.requestID ?? ids.next(), roll: random.nextUnit())
        case .success(let channelRequest):
            response = state.handleChannelRequest(channelRequest, requestID: stream.head.requestID ?? ids.next())
        }
        if !hadValidToken, auth.hasValidToken, !raisedStreamLimit {
            raisedStreamLimit = true
            let settings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams)]
            context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings)))), promise: nil)
        }
        if case .none = directive, let every = faults.goAwayEvery, every > 0, requests % every == 0 {
            directive = .goAway(reason: "Shutdown")
            state.goAwaySent(injected: true)
        } else if case .goAway = directive {
            state.goAwaySent(injected: true)
        }
        let delay = faults.latency?.sample(&random) ?? 0
        if delay > 0 {
            delayedResponses += 1
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let contextBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let response = response
            let directive = directive
            context.eventLoop.scheduleTask(in: .milliseconds(delay)) {
                let handler = loopBound.value
                let context = contextBound.value
                handler.delayedResponses -= 1
                handler.write(response, streamID: streamID, context: context)
                handler.apply(directive, context: context)
                context.flush()
                handler.closeIfDrained(context: context)
            }
        } else {
            write(response, streamID: streamID, context: context)
            apply(directive, context: context)
        }
    }

    private func answerTooLarge(_ streamID: HTTP2StreamID, head: RequestHead, context: ChannelHandlerContext) {
        requests += 1
        let now = state.clock.now()
        let isDevicePath = Self.isDevicePath(head.path)
        let id = isDevicePath ? (validID(head.apnsID) ?? ids.next()) : (head.requestID ?? ids.next())
        let response = APNsResponse.error(.payloadTooLarge, headers: [(isDevicePath ? "apns-id" : "apns-request-id", id)], now: now)
        state.recordRejected(.payloadTooLarge, token: deviceToken(head.path), id: id, payload: "")
        write(response, streamID: streamID, context: context)
        // Flush first: a RST_STREAM discards DATA still queued for the stream.
        context.flush()
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.noError))), promise: nil)
    }

    private func write(_ response: APNsResponse, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var headers = HPACKHeaders()
        headers.reserveCapacity(response.headers.count + 2)
        headers.add(name: ":status", value: Self.statusText(response.status))
        // Ids are unique per response: indexing them would only churn the HPACK dynamic table.
        for (name, value) in response.headers { headers.add(name: name, value: value, indexing: .nonIndexable) }
        if response.body.isEmpty {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))), promise: nil)
        } else {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers)))), promise: nil)
            var buffer = context.channel.allocator.buffer(capacity: response.body.count)
            buffer.writeBytes(response.body)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(buffer), endStream: true)))), promise: nil)
        }
    }

    private static func statusText(_ status: Int) -> String {
        switch status {
        case 200: "200"
        case 400: "400"
        case 403: "403"
        default: String(status)
        }
    }

    private func apply(_ directive: ConnectionDirective, context: ChannelHandlerContext) {
        if case .goAway(let reason) = directive {
            goAway(reason: reason, errorCode: .noError, context: context)
        }
    }

    // MARK: Connection control

    private func goAway(reason: String, errorCode: HTTP2ErrorCode, context: ChannelHandlerContext, closeNow: Bool = false) {
        guard !goingAway, context.channel.isActive else { return }
        goingAway = true
        var body: [UInt8] = Array(#"{"reason":"#.utf8)
        JSONValue.writeString(reason, into: &body)
        body.append(UInt8(ascii: "}"))
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: highestStreamID, errorCode: errorCode, opaqueData: buffer))
        let channel = context.channel
        let written = context.writeAndFlush(wrapOutboundOut(frame))
        if closeNow {
            written.whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.eventLoop.scheduleTask(in: Self.drainTimeout) { channel.close(promise: nil) }
        closeIfDrained(context: context)
    }

    private func closeIfDrained(context: ChannelHandlerContext) {
        guard goingAway, streams.isEmpty, delayedResponses == 0 else { return }
        let channel = context.channel
        // Writes complete in order: once this PING is on the wire, so are the responses and
        // the GOAWAY before it, and closing loses nothing.
        let ping = HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 0), ack: false))
        context.writeAndFlush(wrapOutboundOut(ping)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func resetConnection(context: ChannelHandlerContext) {
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
        guard let path, path.hasPrefix("/3/device/") else { return nil }
        let token = path.dropFirst(10)
        guard !token.isEmpty, token.utf8.allSatisfy(\.isHexDigit) else { return nil }
        return token.lowercased()
    }
}
