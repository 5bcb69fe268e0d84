import Foundation
import NIOCore
import NIOConcurrencyHelpers
import NIOHPACK
import NIOPosix

/// Why the test client gave up.
struct RawH2Error: Error, CustomStringConvertible {
    var description: String
}

/// One HTTP/2 frame as read off the wire.
struct RawFrame {
    static let data: UInt8 = 0, headers: UInt8 = 1, rstStream: UInt8 = 3, settings: UInt8 = 4, ping: UInt8 = 6,
        goAway: UInt8 = 7, windowUpdate: UInt8 = 8

    var type: UInt8
    var flags: UInt8
    var streamID: UInt32
    var payload: ByteBuffer

    var endStream: Bool { flags & 0x1 != 0 }
    var isAck: Bool { flags & 0x1 != 0 }

    /// SETTINGS parameters (id → value).
    var settings: [UInt16: UInt32] {
        var copy = payload
        var out: [UInt16: UInt32] = [:]
        while let id = copy.readInteger(as: UInt16.self), let value = copy.readInteger(as: UInt32.self) {
            out[id] = value
        }
        return out
    }

    /// GOAWAY: last stream id, error code, and the debug data as text.
    var goAway: (lastStreamID: UInt32, errorCode: UInt32, debug: String)? {
        var copy = payload
        guard let last = copy.readInteger(as: UInt32.self), let code = copy.readInteger(as: UInt32.self) else {
            return nil
        }
        return (last & 0x7FFF_FFFF, code, copy.readString(length: copy.readableBytes) ?? "")
    }
}

/// A response read by ``RawH2Client``.
struct RawResponse {
    var status: Int
    var headers: [String: String]
    var body: String

    /// The `reason` of an APNs error body.
    var reason: String? {
        guard let data = body.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }
}

/// A deliberately raw HTTP/2 client over cleartext: it writes frames exactly as told, so tests
/// can break the rules (exceed the stream limit, skip SETTINGS ACKs) and see every frame the
/// server sends. HPACK comes from NIOHPACK.
final class RawH2Client: @unchecked Sendable {
    private let channel: any Channel
    private let inbox: Inbox
    private var pending = ByteBuffer()
    private var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
    private var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
    private var nextStream: UInt32 = 1
    /// Frames read but not yet consumed by a request.
    private(set) var seen: [RawFrame] = []
    private var backlog: [RawFrame] = []

    /// Bytes received and whether the connection closed; filled on the event loop.
    private final class Inbox: Sendable {
        let box = NIOLockedValueBox((bytes: ByteBuffer(), closed: false))
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let inbox: Inbox
        init(_ inbox: Inbox) { self.inbox = inbox }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            inbox.box.withLockedValue { _ = $0.bytes.writeBuffer(&buffer) }
        }
        func channelInactive(context: ChannelHandlerContext) { inbox.box.withLockedValue { $0.closed = true } }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Connects and sends the preface and an empty SETTINGS frame (no ACK of the server's yet).
    static func connect(port: Int, group: any EventLoopGroup) async throws -> RawH2Client {
        let inbox = Inbox()
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(inbox))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let client = RawH2Client(channel: channel, inbox: inbox)
        var preface = ByteBuffer(string: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        client.appendFrame(type: RawFrame.settings, flags: 0, streamID: 0, payload: ByteBuffer(), to: &preface)
        try await channel.writeAndFlush(preface)
        return client
    }

    func close() async {
        try? await channel.close()
    }

    var isActive: Bool { channel.isActive }

    private func appendFrame(
        type: UInt8, flags: UInt8, streamID: UInt32, payload: ByteBuffer, to buffer: inout ByteBuffer
    ) {
        let length = payload.readableBytes
        buffer.writeInteger(UInt8(length >> 16 & 0xFF))
        buffer.writeInteger(UInt16(length & 0xFFFF))
        buffer.writeInteger(type)
        buffer.writeInteger(flags)
        buffer.writeInteger(streamID)
        var copy = payload
        buffer.writeBuffer(&copy)
    }

    func send(type: UInt8, flags: UInt8, streamID: UInt32, payload: ByteBuffer = ByteBuffer()) async throws {
        var buffer = ByteBuffer()
        appendFrame(type: type, flags: flags, streamID: streamID, payload: payload, to: &buffer)
        try await channel.writeAndFlush(buffer)
    }

    func ackSettings() async throws {
        try await send(type: RawFrame.settings, flags: 1, streamID: 0)
    }

    /// Reads the next frame; nil when the connection closed or `timeout` passed.
    func nextFrame(timeout: Duration = .seconds(5)) async throws -> RawFrame? {
        if !backlog.isEmpty { return backlog.removeFirst() }
        let deadline = ContinuousClock.now + timeout
        while true {
            if let frame = parseFrame() {
                seen.append(frame)
                return frame
            }
            let (chunk, closed) = inbox.box.withLockedValue { value in
                let chunk = value.bytes
                value.bytes.clear()
                return (chunk, value.closed)
            }
            if chunk.readableBytes > 0 {
                var chunk = chunk
                pending.writeBuffer(&chunk)
                continue
            }
            if closed || ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    private func parseFrame() -> RawFrame? {
        guard pending.readableBytes >= 9 else { return nil }
        let start = pending.readerIndex
        guard let high = pending.getInteger(at: start, as: UInt8.self),
            let low = pending.getInteger(at: start + 1, as: UInt16.self)
        else { return nil }
        let length = Int(high) << 16 | Int(low)
        guard pending.readableBytes >= 9 + length,
            let type = pending.getInteger(at: start + 3, as: UInt8.self),
            let flags = pending.getInteger(at: start + 4, as: UInt8.self),
            let stream = pending.getInteger(at: start + 5, as: UInt32.self),
            let payload = pending.getSlice(at: start + 9, length: length)
        else { return nil }
        pending.moveReaderIndex(forwardBy: 9 + length)
        pending.discardReadBytes()
        return RawFrame(type: type, flags: flags, streamID: stream & 0x7FFF_FFFF, payload: payload)
    }

    /// Reads frames until one matches; earlier frames are kept for later reads.
    func waitFor(timeout: Duration = .seconds(5), _ matches: (RawFrame) -> Bool) async throws -> RawFrame? {
        var skipped: [RawFrame] = []
        defer { backlog.insert(contentsOf: skipped, at: 0) }
        while let frame = try await nextFrame(timeout: timeout) {
            if matches(frame) { return frame }
            skipped.append(frame)
        }
        return nil
    }

    /// Opens a stream with these headers (and body); returns its id. Does not wait.
    @discardableResult
    func open(
        method: String = "POST", path: String, headers: [(String, String)], body: String?, endStream: Bool = true
    ) async throws -> UInt32 {
        let streamID = nextStream
        nextStream += 2
        var block = HPACKHeaders([
            (":method", method), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path),
        ])
        for (name, value) in headers { block.add(name: name, value: value) }
        var encoded = ByteBuffer()
        try encoder.encode(headers: block, to: &encoded)
        var buffer = ByteBuffer()
        let bodyBytes = body.map { ByteBuffer(string: $0) }
        appendFrame(
            type: RawFrame.headers, flags: 0x4 | (bodyBytes == nil && endStream ? 0x1 : 0), streamID: streamID,
            payload: encoded, to: &buffer)
        if var bodyBytes {
            // Split into frames of at most 16 KiB, the default SETTINGS_MAX_FRAME_SIZE.
            repeat {
                let chunk = bodyBytes.readSlice(length: min(16_384, bodyBytes.readableBytes)) ?? ByteBuffer()
                appendFrame(
                    type: RawFrame.data, flags: bodyBytes.readableBytes == 0 ? 0x1 : 0, streamID: streamID,
                    payload: chunk, to: &buffer)
            } while bodyBytes.readableBytes > 0
        }
        try await channel.writeAndFlush(buffer)
        return streamID
    }

    /// Reads the response of `streamID`, acknowledging SETTINGS on the way.
    func response(streamID: UInt32, timeout: Duration = .seconds(5)) async throws -> RawResponse {
        var status = 0
        var headers: [String: String] = [:]
        var body = ByteBuffer()
        while true {
            guard
                let frame = try await waitFor(
                    timeout: timeout, { $0.streamID == streamID || ($0.type == RawFrame.settings && !$0.isAck) })
            else { throw RawH2Error(description: "no response on stream \(streamID)") }
            if frame.type == RawFrame.settings {
                try await ackSettings()
                continue
            }
            switch frame.type {
            case RawFrame.headers:
                var block = frame.payload
                let decoded = try decoder.decodeHeaders(from: &block)
                for (name, value, _) in decoded {
                    if name == ":status" { status = Int(value) ?? 0 } else { headers[name] = value }
                }
            case RawFrame.data:
                var payload = frame.payload
                body.writeBuffer(&payload)
            case RawFrame.rstStream:
                if status == 0 { throw RawH2Error(description: "stream \(streamID) reset") }
                return RawResponse(status: status, headers: headers, body: String(buffer: body))
            default: break
            }
            if frame.endStream { return RawResponse(status: status, headers: headers, body: String(buffer: body)) }
        }
    }

    /// Sends a request and reads its response.
    func request(
        method: String = "POST", path: String, headers: [(String, String)], body: String?,
        timeout: Duration = .seconds(5)
    ) async throws -> RawResponse {
        let id = try await open(method: method, path: path, headers: headers, body: body)
        return try await response(streamID: id, timeout: timeout)
    }
}

extension RawH2Client {
    /// Waits until the server closes the connection; false on timeout.
    func waitForClose(timeout: Duration = .seconds(5)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await nextFrame(timeout: .milliseconds(50)) == nil, !isActive { return true }
        }
        return !isActive
    }
}
