import Liveline
import LivelineHTTP2
import NIOCore
import NIOHPACK

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks a connection to send GOAWAY `{"reason":"Shutdown"}` and close once its streams are answered.
struct GracefulShutdownEvent: Sendable {}

/// Serves the APNs protocol on one connection: HTTP/2 framing, flow control, stream limits,
/// and the requests themselves.
///
/// **Why its own framing.** The first version sat behind `NIOHTTP2Handler` (no stream
/// multiplexer). Measured with h2load, that handler's per-stream state machines, events and
/// HPACK encoding cost about 16 µs per request on its own, a third of nghttpd's rate at best;
/// the benchmark target is half. This handler speaks the small subset of HTTP/2 a server needs
/// (RFC 9113: preface, SETTINGS, PING, WINDOW_UPDATE, HEADERS/CONTINUATION, DATA, RST_STREAM,
/// GOAWAY), decodes header blocks with NIOHPACK's `HPACKDecoder`, and encodes responses as
/// HPACK literals (see ``FrameWriter``). Peers' protocol errors end the connection with GOAWAY.
///
/// **Concurrency.** Loop-bound: NIO calls it only on the channel's event loop, so the
/// connection state (streams, windows, the provider token, counters, the id generator and the
/// fault dice) needs no lock. Shared state lives in ``MockAPNsState``.
final class APNsConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A request being received.
    private struct PendingStream {
        var head: RequestHead
        var body: ByteBuffer?
        var size = 0
        var limit: Int
        /// Answered early (413) while the body was still arriving.
        var answered = false

        /// Adds a DATA frame's bytes; keeps them only while within the limit.
        mutating func append(_ buffer: ByteBuffer) {
            size += buffer.readableBytes
            guard !answered else { return }
            if size > limit {
                body = nil
            } else if body == nil {
                body = buffer
            } else {
                var copy = buffer
                body?.writeBuffer(&copy)
            }
        }
    }

    /// A response body waiting for the peer's flow-control window.
    private struct BlockedData {
        var bytes: ArraySlice<UInt8>
    }

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

    // Framing
    @exclusivity(unchecked) private var parser = FrameReader(expectingPreface: true)
    @exclusivity(unchecked) private var decoder = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 4096, maxHeaderListSize: maxHeaderListSize)
    @exclusivity(unchecked) private var out = ByteBuffer()
    @exclusivity(unchecked) private var headerBlock: (streamID: UInt32, block: ByteBuffer, endStream: Bool)?
    @exclusivity(unchecked) private var lastClientStreamID: UInt32 = 0
    /// Our SETTINGS_MAX_CONCURRENT_STREAMS values not yet acknowledged, oldest first.
    @exclusivity(unchecked) private var unackedStreamLimits: [Int] = []
    /// The limit the peer has acknowledged; until then RFC 9113 leaves it unlimited.
    @exclusivity(unchecked) private var enforcedStreamLimit = Int.max
    @exclusivity(unchecked) private var peerInitialWindow = HTTP2Wire.defaultWindow
    @exclusivity(unchecked) private var peerMaxFrameSize = HTTP2Wire.maxFrameSize
    @exclusivity(unchecked) private var connectionSendWindow = HTTP2Wire.defaultWindow
    @exclusivity(unchecked) private var streamSendWindows: [UInt32: Int] = [:]
    @exclusivity(unchecked) private var blocked: [UInt32: BlockedData] = [:]
    @exclusivity(unchecked) private var consumedWindow = 0

    // Requests
    @exclusivity(unchecked) private var streams: [UInt32: PendingStream] = [:]
    /// Streams whose request is complete but whose response is delayed by injected latency.
    @exclusivity(unchecked) private var delayedResponses = 0
    @exclusivity(unchecked) private var auth = ConnectionAuthState()
    @exclusivity(unchecked) private var ids = RequestIDGenerator()
    @exclusivity(unchecked) private var random: SplitMix64
    @exclusivity(unchecked) private var requests = 0
    @exclusivity(unchecked) private var raisedStreamLimit = false
    @exclusivity(unchecked) private var goingAway = false
    @exclusivity(unchecked) private var closed = false

    init(state: MockAPNsState, validator: RequestValidator, maxConcurrentStreams: Int, connectionNumber: UInt64) {
        self.state = state
        self.validator = validator
        self.maxConcurrentStreams = maxConcurrentStreams
        random = SplitMix64(seed: state.faults().seed &* 0x9E37_79B9_7F4A_7C15 &+ connectionNumber)
    }

    /// Streams counted against the limit: received and not yet fully answered.
    private var openStreams: Int { streams.count + delayedResponses + blocked.count }

    func handlerAdded(context: ChannelHandlerContext) {
        out = context.channel.allocator.buffer(capacity: 4096)
        if context.channel.isActive { opened(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    private func opened(context: ChannelHandlerContext) {
        state.connectionOpened()
        // APNs advertises one stream until a request carries a valid token (APNS.md §5).
        HTTP2Wire.settings([(.maxConcurrentStreams, 1), (.maxHeaderListSize, UInt32(Self.maxHeaderListSize))], into: &out)
        unackedStreamLimits.append(1)
        HTTP2Wire.windowUpdate(streamID: 0, increment: Self.connectionWindow - HTTP2Wire.defaultWindow, into: &out)
        flush(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !closed {
            closed = true
            state.connectionClosed()
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        parser.append(unwrapInboundIn(data))
        do throws(FrameReader.ParseError) {
            while let frame = try parser.next() {
                guard process(frame, context: context) else { return }
            }
        } catch {
            switch error {
            case .badPreface:
                // Not HTTP/2 with prior knowledge: nothing useful can be said; hang up.
                closed = true
                state.connectionClosed()
                context.close(promise: nil)
            case .frameTooLarge:
                connectionError(.frameSizeError, reason: "FrameTooLarge", context: context)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flush(context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is GracefulShutdownEvent {
            goAway(reason: "Shutdown", code: .noError, context: context)
            flush(context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func flush(context: ChannelHandlerContext) {
        guard out.readableBytes > 0 else { return }
        let bytes = out
        out = context.channel.allocator.buffer(capacity: 4096)
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }

    // MARK: Frames

    /// Handles one frame; false when the connection is finished.
    private func process(_ frame: InboundFrame, context: ChannelHandlerContext) -> Bool {
        if let pending = headerBlock, frame.type != HTTP2Wire.FrameType.continuation.rawValue || frame.streamID != pending.streamID {
            return connectionError(.protocolError, reason: "ExpectedContinuation", context: context)
        }
        switch HTTP2Wire.FrameType(rawValue: frame.type) {
        case .data: return receiveData(frame, context: context)
        case .headers: return receiveHeaders(frame, context: context)
        case .continuation:
            guard var pending = headerBlock else {
                return connectionError(.protocolError, reason: "UnexpectedContinuation", context: context)
            }
            var payload = frame.payload
            pending.block.writeBuffer(&payload)
            guard pending.block.readableBytes <= Self.maxHeaderListSize * 2 else {
                return connectionError(.enhanceYourCalm, reason: "HeaderBlockTooLarge", context: context)
            }
            if frame.has(HTTP2Wire.Flags.endHeaders) {
                headerBlock = nil
                return headersComplete(streamID: pending.streamID, block: pending.block, endStream: pending.endStream, context: context)
            }
            headerBlock = pending
            return true
        case .settings: return receiveSettings(frame, context: context)
        case .ping:
            guard frame.payload.readableBytes == 8, frame.streamID == 0 else {
                return connectionError(.frameSizeError, reason: "BadPing", context: context)
            }
            if !frame.has(HTTP2Wire.Flags.ack) { FrameWriter.pingAck(frame.payload, into: &out) }
            return true
        case .windowUpdate:
            var payload = frame.payload
            guard let raw = payload.readInteger(as: UInt32.self) else {
                return connectionError(.frameSizeError, reason: "BadWindowUpdate", context: context)
            }
            let increment = Int(raw & 0x7FFF_FFFF)
            if frame.streamID == 0 {
                connectionSendWindow = min(HTTP2Wire.maxWindow, connectionSendWindow + increment)
            } else if streamSendWindows[frame.streamID] != nil {
                streamSendWindows[frame.streamID, default: 0] += increment
            }
            sendBlocked(context: context)
            return true
        case .rstStream:
            streams[frame.streamID] = nil
            blocked[frame.streamID] = nil
            streamSendWindows[frame.streamID] = nil
            closeIfDrained(context: context)
            return true
        case .pushPromise:
            return connectionError(.protocolError, reason: "PushPromiseFromClient", context: context)
        case .goAway, .priority, nil:
            return true
        }
    }

    private func receiveSettings(_ frame: InboundFrame, context: ChannelHandlerContext) -> Bool {
        guard frame.streamID == 0 else { return connectionError(.protocolError, reason: "BadSettings", context: context) }
        if frame.has(HTTP2Wire.Flags.ack) {
            if !unackedStreamLimits.isEmpty { enforcedStreamLimit = unackedStreamLimits.removeFirst() }
            return true
        }
        var payload = frame.payload
        guard payload.readableBytes % 6 == 0 else { return connectionError(.frameSizeError, reason: "BadSettings", context: context) }
        while let id = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            switch HTTP2Wire.Setting(rawValue: id) {
            case .initialWindowSize:
                guard value <= UInt32(HTTP2Wire.maxWindow) else {
                    return connectionError(.flowControlError, reason: "BadInitialWindowSize", context: context)
                }
                let delta = Int(value) - peerInitialWindow
                peerInitialWindow = Int(value)
                for id in streamSendWindows.keys { streamSendWindows[id, default: 0] += delta }
            case .maxFrameSize:
                guard (16_384...16_777_215).contains(value) else {
                    return connectionError(.protocolError, reason: "BadMaxFrameSize", context: context)
                }
                peerMaxFrameSize = Int(value)
            default: break
            }
        }
        HTTP2Wire.settingsAck(into: &out)
        sendBlocked(context: context)
        return true
    }

    private func receiveHeaders(_ frame: InboundFrame, context: ChannelHandlerContext) -> Bool {
        var payload = frame.payload
        guard frame.streamID != 0 else { return connectionError(.protocolError, reason: "HeadersOnStreamZero", context: context) }
        if frame.has(HTTP2Wire.Flags.padded) {
            guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
                return connectionError(.protocolError, reason: "BadPadding", context: context)
            }
            payload = payload.getSlice(at: payload.readerIndex, length: payload.readableBytes - Int(padding)) ?? ByteBuffer()
        }
        if frame.has(HTTP2Wire.Flags.priority) {
            guard payload.readableBytes >= 5 else { return connectionError(.frameSizeError, reason: "BadPriority", context: context) }
            payload.moveReaderIndex(forwardBy: 5)
        }
        let endStream = frame.has(HTTP2Wire.Flags.endStream)
        if !frame.has(HTTP2Wire.Flags.endHeaders) {
            headerBlock = (frame.streamID, payload, endStream)
            return true
        }
        return headersComplete(streamID: frame.streamID, block: payload, endStream: endStream, context: context)
    }

    private func headersComplete(streamID: UInt32, block: ByteBuffer, endStream: Bool, context: ChannelHandlerContext) -> Bool {
        var block = block
        let headers: HPACKHeaders
        do {
            headers = try decoder.decodeHeaders(from: &block)
        } catch {
            return connectionError(.compressionError, reason: "BadHeaderBlock", context: context)
        }
        if streams[streamID] != nil {
            // Trailers end the request.
            guard endStream else { return connectionError(.protocolError, reason: "TrailersWithoutEndStream", context: context) }
            if let stream = streams.removeValue(forKey: streamID) { finish(stream, streamID: streamID, context: context) }
            return true
        }
        guard streamID & 1 == 1, streamID > lastClientStreamID else {
            return connectionError(.protocolError, reason: "BadStreamId", context: context)
        }
        if goingAway {
            HTTP2Wire.rstStream(streamID: streamID, code: .refusedStream, into: &out)
            return true
        }
        guard openStreams < enforcedStreamLimit else {
            return connectionError(.protocolError, reason: "TooManyConcurrentStreams", context: context)
        }
        lastClientStreamID = streamID
        let head = RequestHead(headers)
        let limit = head.path?.utf8.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "4"), UInt8(ascii: "/")]) == true
            ? PayloadLimits.broadcast : PayloadLimits.device
        let stream = PendingStream(head: head, limit: limit)
        if endStream {
            finish(stream, streamID: streamID, context: context)
        } else {
            streams[streamID] = stream
        }
        return true
    }

    private func receiveData(_ frame: InboundFrame, context: ChannelHandlerContext) -> Bool {
        guard frame.streamID != 0 else { return connectionError(.protocolError, reason: "DataOnStreamZero", context: context) }
        returnCredit(frame.payload.readableBytes)
        var payload = frame.payload
        if frame.has(HTTP2Wire.Flags.padded) {
            guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
                return connectionError(.protocolError, reason: "BadPadding", context: context)
            }
            payload = payload.getSlice(at: payload.readerIndex, length: payload.readableBytes - Int(padding)) ?? ByteBuffer()
        }
        let endStream = frame.has(HTTP2Wire.Flags.endStream)
        if endStream {
            // The common case: the body's last (often only) frame.
            guard var stream = streams.removeValue(forKey: frame.streamID) else { return true }
            stream.append(payload)
            finish(stream, streamID: frame.streamID, context: context)
            return true
        }
        guard let index = streams.index(forKey: frame.streamID) else { return true }
        streams.values[index].append(payload)
        let stream = streams.values[index]
        if !stream.answered, stream.size > stream.limit {
            // Answer now instead of waiting for a body that may not fit the stream window.
            streams.values[index].answered = true
            answerTooLarge(frame.streamID, head: stream.head, context: context)
        }
        return true
    }

    private func returnCredit(_ bytes: Int) {
        consumedWindow += bytes
        guard consumedWindow >= Self.connectionWindow / 2 else { return }
        HTTP2Wire.windowUpdate(streamID: 0, increment: consumedWindow, into: &out)
        consumedWindow = 0
    }

    // MARK: Requests

    private func finish(_ stream: PendingStream, streamID: UInt32, context: ChannelHandlerContext) {
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
                                 priority: stream.head.priority == "5" ? 5 : 10, payload: body.text)
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
            HTTP2Wire.settings([(.maxConcurrentStreams, UInt32(clamping: maxConcurrentStreams))], into: &out)
            unackedStreamLimits.append(maxConcurrentStreams)
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
                guard !handler.closed else { return }
                handler.write(response, streamID: streamID)
                handler.apply(directive, context: context)
                handler.flush(context: context)
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
        let response = APNsResponse.error(.payloadTooLarge, headers: [(isDevicePath ? "apns-id" : "apns-request-id", id)], now: now)
        state.recordRejected(.payloadTooLarge, token: deviceToken(head.path), id: id,
                             priority: head.priority == "5" ? 5 : 10, payload: "")
        write(response, streamID: streamID)
        // The response is complete; ask the client to stop sending the body (RFC 9113 §8.1).
        HTTP2Wire.rstStream(streamID: streamID, code: .noError, into: &out)
        blocked[streamID] = nil
        streamSendWindows[streamID] = nil
    }

    /// Writes a response, holding back body bytes the peer's windows do not allow yet.
    private func write(_ response: APNsResponse, streamID: UInt32) {
        FrameWriter.headers(streamID: streamID, status: response.status, fields: response.headers,
                            endStream: response.body.isEmpty, into: &out)
        guard !response.body.isEmpty else { return }
        streamSendWindows[streamID] = peerInitialWindow
        blocked[streamID] = BlockedData(bytes: response.body[...])
        sendData(streamID: streamID)
    }

    /// Sends what the windows allow of a stream's pending body.
    private func sendData(streamID: UInt32) {
        guard var pending = blocked[streamID] else { return }
        var window = streamSendWindows[streamID] ?? 0
        while !pending.bytes.isEmpty {
            let size = min(pending.bytes.count, window, connectionSendWindow, peerMaxFrameSize)
            guard size > 0 else { break }
            let chunk = pending.bytes.prefix(size)
            pending.bytes = pending.bytes.dropFirst(size)
            window -= size
            connectionSendWindow -= size
            FrameWriter.data(streamID: streamID, bytes: chunk, endStream: pending.bytes.isEmpty, into: &out)
        }
        if pending.bytes.isEmpty {
            blocked[streamID] = nil
            streamSendWindows[streamID] = nil
        } else {
            blocked[streamID] = pending
            streamSendWindows[streamID] = window
        }
    }

    private func sendBlocked(context: ChannelHandlerContext) {
        guard !blocked.isEmpty else { return }
        for streamID in blocked.keys.sorted() { sendData(streamID: streamID) }
        closeIfDrained(context: context)
    }

    private func apply(_ directive: ConnectionDirective, context: ChannelHandlerContext) {
        if case .goAway(let reason) = directive {
            goAway(reason: reason, code: .noError, context: context)
        }
    }

    // MARK: Connection control

    /// Sends GOAWAY with `{"reason": …}`; the connection closes once in-flight streams are answered.
    private func goAway(reason: String, code: HTTP2Wire.ErrorCode, context: ChannelHandlerContext) {
        guard !goingAway, !closed else { return }
        goingAway = true
        HTTP2Wire.goAway(lastStreamID: lastClientStreamID, code: code, debug: Self.reasonJSON(reason), into: &out)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: Self.drainTimeout) { channel.close(promise: nil) }
        closeIfDrained(context: context)
    }

    /// A protocol error: GOAWAY with the error code and a JSON reason, then close. Returns false.
    @discardableResult
    private func connectionError(_ code: HTTP2Wire.ErrorCode, reason: String, context: ChannelHandlerContext) -> Bool {
        guard !closed else { return false }
        if !goingAway {
            goingAway = true
            HTTP2Wire.goAway(lastStreamID: lastClientStreamID, code: code, debug: Self.reasonJSON(reason), into: &out)
        }
        closed = true
        state.connectionClosed()
        let bytes = out
        out = context.channel.allocator.buffer(capacity: 0)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
        return false
    }

    private func closeIfDrained(context: ChannelHandlerContext) {
        guard goingAway, !closed, streams.isEmpty, delayedResponses == 0, blocked.isEmpty else { return }
        closed = true
        state.connectionClosed()
        let bytes = out
        out = context.channel.allocator.buffer(capacity: 0)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
    }

    private func resetConnection(context: ChannelHandlerContext) {
        closed = true
        state.connectionClosed()
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
        guard let path, let token = RequestValidator.deviceToken(in: path), token.utf8.allSatisfy(\.isHexDigit) else { return nil }
        return RequestValidator.lowercasedHex(token)
    }
}
