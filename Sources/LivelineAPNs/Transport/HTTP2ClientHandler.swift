import Liveline
import LivelineHTTP2
import NIOCore
import NIOHPACK

/// Speaks HTTP/2 (RFC 9113) to APNs on one connection: opens a stream per request, matches the
/// answers, and keeps the connection's rules.
///
/// It frames HTTP/2 itself, on the bytes under TLS, instead of running `NIOHTTP2Handler`:
/// a client that only sends short POSTs and reads short answers needs a small part of the
/// protocol, and the general stream machinery cost more per push than the request itself
/// (see BENCHMARKS.md, "APNs client"). What it does:
///
/// - sends the preface and SETTINGS (no server push, a 1 MiB receive window), acknowledges the
///   server's SETTINGS and answers PINGs;
/// - writes each request as HEADERS (see ``RequestHeaderEncoder``) and DATA within the server's
///   flow-control windows, queueing DATA that does not fit until WINDOW_UPDATE;
/// - keeps to the server's `SETTINGS_MAX_CONCURRENT_STREAMS` (APNs starts at 1 until a request
///   carries a valid token), queueing the rest;
/// - decodes answers (HEADERS, CONTINUATION, DATA) with NIOHPACK and completes each request's
///   promise; returns receive-window credit;
/// - after GOAWAY, fails the requests the server never processed so they can go elsewhere, and
///   closes once the rest are answered;
/// - times requests out and PINGs when idle.
///
/// Frames produced during one event-loop turn are collected in one buffer and written once, so
/// a burst of requests costs one TLS record and one syscall, not one per frame.
///
/// **Concurrency.** Loop-bound: NIO calls it only on its channel's event loop, so its state
/// needs no lock. Other threads reach it by writing a ``PendingRequest`` to the channel.
final class HTTP2ClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = PendingRequest
    typealias OutboundOut = ByteBuffer

    private struct Stream {
        var pending: PendingRequest
        var status = 0
        var headers: HPACKHeaders?
        var body: ByteBuffer?
        /// Request body bytes still to send, waiting for flow-control credit.
        var unsent: ByteBuffer?
        /// How much the server lets this stream send.
        var sendWindow: Int
        /// Response bytes received since credit was last returned.
        var received = 0
    }

    /// A header block split over HEADERS and CONTINUATION frames.
    private struct PartialHeaders {
        var streamID: UInt32
        var block: ByteBuffer
        var endStream: Bool
    }

    /// The receive window the client offers, for the connection and each stream; credit goes
    /// back when half of it is used.
    static let receiveWindow = 1 << 20
    /// Streams the server may open toward us: none (server push is off).
    static let advertisedMaxStreams: UInt32 = 100

    private let authority: String
    private let scheme: String
    private let idlePing: TimeAmount
    /// Told when the connection can take no more requests (GOAWAY or closed), once.
    private let onUnusable: @Sendable () -> Void
    private var reportedUnusable = false

    private var reader = FrameReader(expectingPreface: false)
    private var encoder = RequestHeaderEncoder()
    private var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
    /// Frames waiting for the next flush.
    private var out = ByteBuffer()

    private var nextStreamID: UInt32 = 1
    /// Requests on this connection so far, for stream-id exhaustion.
    private var opened = 0
    private var streams: [UInt32: Stream] = [:]
    /// Streams with request bytes waiting for flow-control credit, in order.
    private var blocked = CircularBuffer<UInt32>()
    private var queued = CircularBuffer<PendingRequest>()
    private var partial: PartialHeaders?

    /// The server's limit. APNs starts at 1 until a request carries a valid token.
    private var maxConcurrentStreams = 1
    private var peerInitialWindow = HTTP2Wire.defaultWindow
    private var peerMaxFrameSize = HTTP2Wire.maxFrameSize
    private var connectionSendWindow = HTTP2Wire.defaultWindow
    private var consumedWindow = 0
    private var goAway: (lastStreamID: UInt32, reason: String?)?
    /// Whether the connection is up and our preface is written. The connect future can complete
    /// before `channelActive` reaches this handler, so a request can arrive first; it waits.
    private var active = false
    private var closing = false
    private var sweep: RepeatedTask?
    private var lastActivity = NIODeadline.now()

    init(authority: String, tls: Bool, idlePing: TimeAmount, onUnusable: @escaping @Sendable () -> Void) {
        self.authority = authority
        self.scheme = tls ? "https" : "http"
        self.idlePing = idlePing
        self.onUnusable = onUnusable
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        out = context.channel.allocator.buffer(capacity: 16_384)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let contextBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        sweep = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in
            loopBound.value.sweepTimeouts(context: contextBound.value)
        }
        if context.channel.isActive { begin(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        sweep?.cancel()
        failAll(APNsTransportError.connectionClosed)
    }

    func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
        context.fireChannelActive()
    }

    private func begin(context: ChannelHandlerContext) {
        guard !active else { return }
        active = true
        out.writeBytes(HTTP2Wire.preface)
        HTTP2Wire.settings([
            (.enablePush, 0),
            (.maxConcurrentStreams, Self.advertisedMaxStreams),
            (.initialWindowSize, UInt32(Self.receiveWindow)),
        ], into: &out)
        HTTP2Wire.windowUpdate(streamID: 0, increment: Self.receiveWindow - HTTP2Wire.defaultWindow, into: &out)
        startQueued()
        writeOut(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(APNsTransportError.connectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A TLS or socket error ends the connection; its requests fail as closed.
        context.close(promise: nil)
    }

    // MARK: Sending

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let pending = unwrapOutboundIn(data)
        promise?.succeed()
        if let goAway {
            pending.completion(.failure(APNsTransportError.goingAway(reason: goAway.reason)))
        } else if closing {
            pending.completion(.failure(APNsTransportError.connectionClosed))
        } else if active, streams.count < maxConcurrentStreams, queued.isEmpty {
            start(pending)
        } else {
            queued.append(pending)
        }
    }

    func flush(context: ChannelHandlerContext) {
        writeOut(context: context)
    }

    /// Hands the collected frames to TLS and the socket, in one write.
    private func writeOut(context: ChannelHandlerContext) {
        guard out.readableBytes > 0 else { return }
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
        out = context.channel.allocator.buffer(capacity: 16_384)
    }

    /// Opens a stream for `pending`: HEADERS, then as much of the body as the windows allow.
    private func start(_ pending: PendingRequest) {
        // Stream ids are 31-bit; long before they run out, retire the connection.
        guard opened < 1_000_000_000 else {
            pending.completion(.failure(APNsTransportError.goingAway(reason: "stream ids exhausted")))
            markUnusable()
            return
        }
        let streamID = nextStreamID
        nextStreamID += 2
        opened += 1
        lastActivity = .now()
        let body = pending.request.body.flatMap { $0.readableBytes > 0 ? $0 : nil }
        writeHeaders(pending, streamID: streamID, endStream: body == nil)
        var stream = Stream(pending: pending, unsent: body, sendWindow: peerInitialWindow)
        if body != nil, !sendData(&stream, streamID: streamID) {
            blocked.append(streamID)
        }
        streams[streamID] = stream
    }

    private func writeHeaders(_ pending: PendingRequest, streamID: UInt32, endStream: Bool) {
        let frameStart = out.writerIndex
        let flags = HTTP2Wire.Flags.endHeaders | (endStream ? HTTP2Wire.Flags.endStream : 0)
        HTTP2Wire.frameHeader(length: 0, type: .headers, flags: flags, streamID: streamID, into: &out)
        let blockStart = out.writerIndex
        encoder.encode(pending.request, scheme: scheme, authority: authority, authorization: pending.authorization, into: &out)
        let length = out.writerIndex - blockStart
        if length <= peerMaxFrameSize {
            out.setInteger(UInt8(truncatingIfNeeded: length >> 16), at: frameStart)
            out.setInteger(UInt16(truncatingIfNeeded: length), at: frameStart + 1)
            return
        }
        // A block larger than a frame (never for APNs's headers, but legal): HEADERS, then
        // CONTINUATION frames, END_HEADERS on the last.
        var block = ByteBuffer(bytes: out.readableBytesView[blockStart..<out.writerIndex])
        out.moveWriterIndex(to: frameStart)
        var first = true
        while block.readableBytes > 0 {
            let chunk = min(block.readableBytes, peerMaxFrameSize)
            let last = chunk == block.readableBytes
            let type: HTTP2Wire.FrameType = first ? .headers : .continuation
            var frameFlags: UInt8 = last ? HTTP2Wire.Flags.endHeaders : 0
            if first, endStream { frameFlags |= HTTP2Wire.Flags.endStream }
            HTTP2Wire.frameHeader(length: chunk, type: type, flags: frameFlags, streamID: streamID, into: &out)
            if var part = block.readSlice(length: chunk) { out.writeBuffer(&part) }
            first = false
        }
    }

    /// Sends as much of the stream's body as both windows allow; true when all of it is sent.
    private func sendData(_ stream: inout Stream, streamID: UInt32) -> Bool {
        guard var unsent = stream.unsent else { return true }
        let allowed = min(unsent.readableBytes, stream.sendWindow, connectionSendWindow)
        if allowed > 0 {
            let last = allowed == unsent.readableBytes
            Self.data(streamID: streamID, bytes: &unsent, count: allowed, endStream: last, maxFrameSize: peerMaxFrameSize, into: &out)
            stream.sendWindow -= allowed
            connectionSendWindow -= allowed
        }
        if unsent.readableBytes == 0 {
            stream.unsent = nil
            return true
        }
        stream.unsent = unsent
        return false
    }

    /// Sends waiting request bytes after the windows grew, oldest stream first.
    private func sendBlocked() {
        var rounds = blocked.count
        while rounds > 0, connectionSendWindow > 0, let streamID = blocked.popFirst() {
            rounds -= 1
            guard var stream = streams[streamID], stream.unsent != nil else { continue }
            if !sendData(&stream, streamID: streamID) { blocked.append(streamID) }
            streams[streamID] = stream
        }
    }

    /// DATA frames carrying `bytes` (a slice of the body), split at `maxFrameSize`.
    private static func data(streamID: UInt32, bytes: inout ByteBuffer, count: Int, endStream: Bool, maxFrameSize: Int, into out: inout ByteBuffer) {
        var left = count
        repeat {
            let chunk = min(left, maxFrameSize)
            left -= chunk
            HTTP2Wire.frameHeader(length: chunk, type: .data, flags: endStream && left == 0 ? HTTP2Wire.Flags.endStream : 0, streamID: streamID, into: &out)
            if var part = bytes.readSlice(length: chunk) { out.writeBuffer(&part) }
        } while left > 0
    }

    private func startQueued() {
        while active, !closing, goAway == nil, streams.count < maxConcurrentStreams, let next = queued.popFirst() {
            start(next)
        }
    }

    // MARK: Receiving

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reader.append(unwrapInboundIn(data))
        lastActivity = .now()
        do {
            while !closing, let frame = try reader.next() {
                try handle(frame)
            }
        } catch FrameReader.ParseError.frameTooLarge(let length) {
            fail(context: context, code: .frameSizeError, why: "a \(length)-byte frame")
        } catch let error as ProtocolViolation {
            fail(context: context, code: error.code, why: error.why)
        } catch {
            fail(context: context, code: .compressionError, why: "\(error)")
        }
        startQueued()
        if goAway != nil, streams.isEmpty, queued.isEmpty {
            writeOut(context: context)
            closing = true
            context.close(promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        writeOut(context: context)
        context.fireChannelReadComplete()
    }

    /// The server broke the protocol: the connection cannot continue.
    private struct ProtocolViolation: Error {
        var code: HTTP2Wire.ErrorCode
        var why: String
    }

    private func handle(_ frame: InboundFrame) throws {
        if let partial, frame.type != HTTP2Wire.FrameType.continuation.rawValue || frame.streamID != partial.streamID {
            throw ProtocolViolation(code: .protocolError, why: "a header block was interrupted")
        }
        switch HTTP2Wire.FrameType(rawValue: frame.type) {
        case .data: try receiveData(frame)
        case .headers: try receiveHeaders(frame)
        case .continuation: try receiveContinuation(frame)
        case .rstStream:
            var payload = frame.payload
            let code = payload.readInteger(as: UInt32.self) ?? 0
            if let stream = streams.removeValue(forKey: frame.streamID) {
                stream.pending.completion(.failure(APNsTransportError.streamReset(HTTP2Wire.ErrorCode.name(code))))
            }
        case .settings:
            guard !frame.has(HTTP2Wire.Flags.ack) else { return }
            try applySettings(frame.payload)
            HTTP2Wire.settingsAck(into: &out)
            sendBlocked()
        case .ping:
            var payload = frame.payload
            guard !frame.has(HTTP2Wire.Flags.ack), let data = payload.readInteger(as: UInt64.self) else { return }
            HTTP2Wire.ping(data, ack: true, into: &out)
        case .goAway:
            var payload = frame.payload
            guard let lastStreamID = payload.readInteger(as: UInt32.self), let code = payload.readInteger(as: UInt32.self) else {
                throw ProtocolViolation(code: .frameSizeError, why: "a short GOAWAY")
            }
            receiveGoAway(lastStreamID: lastStreamID & 0x7FFF_FFFF, code: code, debug: payload)
        case .windowUpdate:
            var payload = frame.payload
            guard let raw = payload.readInteger(as: UInt32.self) else {
                throw ProtocolViolation(code: .frameSizeError, why: "a short WINDOW_UPDATE")
            }
            let increment = Int(raw & 0x7FFF_FFFF)
            if frame.streamID == 0 {
                connectionSendWindow += increment
                guard connectionSendWindow <= HTTP2Wire.maxWindow else {
                    throw ProtocolViolation(code: .flowControlError, why: "the connection window overflowed")
                }
            } else if var stream = streams[frame.streamID] {
                stream.sendWindow += increment
                streams[frame.streamID] = stream
            }
            sendBlocked()
        case .pushPromise:
            throw ProtocolViolation(code: .protocolError, why: "PUSH_PROMISE, though server push is off")
        case .priority, nil:
            break
        }
    }

    private func receiveData(_ frame: InboundFrame) throws {
        guard frame.streamID != 0 else { throw ProtocolViolation(code: .protocolError, why: "DATA on stream 0") }
        let length = frame.payload.readableBytes
        consumedWindow += length
        if consumedWindow >= Self.receiveWindow / 2 {
            HTTP2Wire.windowUpdate(streamID: 0, increment: consumedWindow, into: &out)
            consumedWindow = 0
        }
        guard var stream = streams[frame.streamID] else { return }
        var bytes = try Self.unpadded(frame)
        let endStream = frame.has(HTTP2Wire.Flags.endStream)
        if stream.body == nil {
            stream.body = bytes
        } else {
            stream.body?.writeBuffer(&bytes)
        }
        if endStream {
            streams[frame.streamID] = nil
            complete(stream)
            return
        }
        stream.received += length
        if stream.received >= Self.receiveWindow / 2 {
            HTTP2Wire.windowUpdate(streamID: frame.streamID, increment: stream.received, into: &out)
            stream.received = 0
        }
        streams[frame.streamID] = stream
    }

    private func receiveHeaders(_ frame: InboundFrame) throws {
        guard frame.streamID != 0 else { throw ProtocolViolation(code: .protocolError, why: "HEADERS on stream 0") }
        var block = try Self.unpadded(frame)
        if frame.has(HTTP2Wire.Flags.priority) {
            guard block.readableBytes >= 5 else { throw ProtocolViolation(code: .frameSizeError, why: "a short HEADERS") }
            block.moveReaderIndex(forwardBy: 5)
        }
        let endStream = frame.has(HTTP2Wire.Flags.endStream)
        if frame.has(HTTP2Wire.Flags.endHeaders) {
            try receiveHeaderBlock(&block, streamID: frame.streamID, endStream: endStream)
        } else {
            partial = PartialHeaders(streamID: frame.streamID, block: ByteBuffer(buffer: block), endStream: endStream)
        }
    }

    private func receiveContinuation(_ frame: InboundFrame) throws {
        guard var headers = partial else { throw ProtocolViolation(code: .protocolError, why: "CONTINUATION without HEADERS") }
        var fragment = frame.payload
        headers.block.writeBuffer(&fragment)
        if frame.has(HTTP2Wire.Flags.endHeaders) {
            partial = nil
            try receiveHeaderBlock(&headers.block, streamID: headers.streamID, endStream: headers.endStream)
        } else {
            partial = headers
        }
    }

    private func receiveHeaderBlock(_ block: inout ByteBuffer, streamID: UInt32, endStream: Bool) throws {
        // Decoded even for a stream the client gave up on: the block updates the dynamic table.
        let headers = try decoder.decodeHeaders(from: &block)
        guard var stream = streams[streamID] else { return }
        if let status = headers.first(name: ":status").flatMap({ Int($0) }), status >= 200 {
            stream.status = status
            stream.headers = headers
        }
        if endStream {
            streams[streamID] = nil
            complete(stream)
        } else {
            streams[streamID] = stream
        }
    }

    private func applySettings(_ payload: ByteBuffer) throws {
        var payload = payload
        guard payload.readableBytes % 6 == 0 else { throw ProtocolViolation(code: .frameSizeError, why: "a SETTINGS frame of odd length") }
        while let identifier = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            switch HTTP2Wire.Setting(rawValue: identifier) {
            case .headerTableSize:
                encoder.setTableSizeLimit(Int(value))
            case .maxConcurrentStreams:
                maxConcurrentStreams = max(1, Int(value))
            case .initialWindowSize:
                guard Int(value) <= HTTP2Wire.maxWindow else {
                    throw ProtocolViolation(code: .flowControlError, why: "an initial window of \(value)")
                }
                let delta = Int(value) - peerInitialWindow
                peerInitialWindow = Int(value)
                if delta != 0 {
                    for id in streams.keys { streams[id]?.sendWindow += delta }
                }
            case .maxFrameSize:
                guard (HTTP2Wire.maxFrameSize...16_777_215).contains(Int(value)) else {
                    throw ProtocolViolation(code: .protocolError, why: "a maximum frame size of \(value)")
                }
                peerMaxFrameSize = Int(value)
            case .enablePush, .maxHeaderListSize, nil:
                break
            }
        }
    }

    private func receiveGoAway(lastStreamID: UInt32, code: UInt32, debug: ByteBuffer) {
        let reason = Self.reason(inJSON: debug) ?? (code == 0 ? nil : HTTP2Wire.ErrorCode.name(code))
        goAway = (lastStreamID, reason)
        markUnusable()
        // Streams the server never processed can go elsewhere; the others will still answer.
        for (id, stream) in streams where id > lastStreamID {
            streams[id] = nil
            stream.pending.completion(.failure(APNsTransportError.goingAway(reason: reason)))
        }
        while let next = queued.popFirst() { next.completion(.failure(APNsTransportError.goingAway(reason: reason))) }
    }

    /// A DATA or HEADERS payload without its padding.
    private static func unpadded(_ frame: InboundFrame) throws -> ByteBuffer {
        var payload = frame.payload
        guard frame.has(HTTP2Wire.Flags.padded) else { return payload }
        guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
            throw ProtocolViolation(code: .protocolError, why: "padding longer than the frame")
        }
        payload.moveWriterIndex(to: payload.writerIndex - Int(padding))
        return payload
    }

    private func complete(_ stream: Stream) {
        var response = APNsResponse(status: stream.status)
        if let headers = stream.headers {
            response.apnsID = headers.first(name: "apns-id")
            response.uniqueID = headers.first(name: "apns-unique-id")
            response.channelID = headers.first(name: "apns-channel-id")
            response.requestID = headers.first(name: "apns-request-id")
        }
        if let body = stream.body, body.readableBytes > 0 {
            let bytes = Array(body.readableBytesView)
            response.body = bytes
            if !response.isSuccess, case .object(let object)? = try? JSONParser.parse(bytes) {
                if case .string(let reason)? = object["reason"] { response.reason = APNsReason(rawValue: reason) }
                if case .int(let timestamp)? = object["timestamp"] { response.timestamp = Int64(timestamp) }
            }
        }
        if stream.status == 0 {
            stream.pending.completion(.failure(APNsTransportError.streamReset("the stream ended without a status")))
        } else {
            stream.pending.completion(.success(response))
        }
    }

    /// The `reason` of a JSON body such as GOAWAY's debug data.
    static func reason(inJSON buffer: ByteBuffer) -> String? {
        guard buffer.readableBytes > 0,
              case .object(let object)? = try? JSONParser.parse(Array(buffer.readableBytesView)),
              case .string(let reason)? = object["reason"] else { return nil }
        return reason
    }

    // MARK: Housekeeping

    /// Ends the connection after the server broke the protocol; its requests fail as closed.
    private func fail(context: ChannelHandlerContext, code: HTTP2Wire.ErrorCode, why: String) {
        guard !closing else { return }
        closing = true
        HTTP2Wire.goAway(lastStreamID: 0, code: code, into: &out)
        writeOut(context: context)
        failAll(APNsTransportError.connectionClosed)
        context.close(promise: nil)
    }

    private func sweepTimeouts(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        for (id, stream) in streams where stream.pending.deadline < now {
            streams[id] = nil
            stream.pending.completion(.failure(APNsTransportError.timedOut))
            HTTP2Wire.rstStream(streamID: id, code: .cancel, into: &out)
        }
        if queued.contains(where: { $0.deadline < now }) {
            var kept = CircularBuffer<PendingRequest>()
            while let next = queued.popFirst() {
                if next.deadline < now { next.completion(.failure(APNsTransportError.timedOut)) } else { kept.append(next) }
            }
            queued = kept
        }
        if active, !closing, now - lastActivity > idlePing {
            lastActivity = now
            HTTP2Wire.ping(UInt64(now.uptimeNanoseconds), ack: false, into: &out)
        }
        startQueued()
        writeOut(context: context)
    }

    private func markUnusable() {
        guard !reportedUnusable else { return }
        reportedUnusable = true
        onUnusable()
    }

    private func failAll(_ error: APNsTransportError) {
        markUnusable()
        let failed = streams
        streams = [:]
        blocked.removeAll()
        for stream in failed.values { stream.pending.completion(.failure(error)) }
        while let next = queued.popFirst() { next.completion(.failure(error)) }
    }
}
