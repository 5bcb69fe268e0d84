import LivelineHTTP2
import NIOCore

/// Serves FCM's HTTP v1 API and the token endpoint on one HTTP/2 connection: a thin NIO adapter
/// around ``HTTP2ConnectionCore`` (the protocol's rules, shared with the APNs client and mock)
/// that gathers each request's header block and body and answers it from ``MockFCMState``.
///
/// **Concurrency.** Loop-bound: NIO calls it only on its channel's event loop, so its streams
/// need no lock; what connections share lives in ``MockFCMState``.
final class FCMConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A request being received.
    private struct PendingStream {
        var method = ""
        var path = ""
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
    }

    /// The largest body the mock reads; FCM's request limit is far below it.
    static let maxBody = 1 << 20
    static let maxHeaderListSize = 16_384

    private let state: MockFCMState
    private var core: HTTP2ConnectionCore
    private var out = ByteBuffer()
    private var streams: [UInt32: PendingStream] = [:]
    private var closed = false

    init(state: MockFCMState, maxConcurrentStreams: Int) {
        self.state = state
        var settings = ConnectionSettings()
        settings.maxConcurrentStreams = max(1, maxConcurrentStreams)
        settings.maxHeaderListSize = Self.maxHeaderListSize
        core = HTTP2ConnectionCore(
            role: .server, settings: settings, connectionWindow: 1 << 20, maxHeaderListSize: Self.maxHeaderListSize)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        out = context.channel.allocator.buffer(capacity: 4096)
        if context.channel.isActive { opened(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    private func opened(context: ChannelHandlerContext) {
        core.start(into: &out)
        flush(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        core.append(unwrapInboundIn(data))
        do throws(HTTP2ProtocolError) {
            while let event = try core.nextEvent(into: &out) {
                handle(event)
            }
        } catch {
            closed = true
            if error != .badPreface { core.goAway(error.code, debug: Array(error.why.utf8), into: &out) }
            let bytes = out
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flush(context: context)
        context.fireChannelReadComplete()
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

    private func handle(_ event: HTTP2Event) {
        switch event {
        case .headers(let streamID, let fields, let endStream, let opened):
            // Past the limit the client has acknowledged, the stream is refused (RFC 9113 §5.1.2);
            // the client may send it again.
            if opened, core.streams.count > core.localSettings.maxConcurrentStreams ?? Int.max {
                core.reset(streamID: streamID, code: .refusedStream, into: &out)
                return
            }
            var stream = opened ? PendingStream() : (streams.removeValue(forKey: streamID) ?? PendingStream())
            if opened {
                for (name, value) in fields {
                    switch name {
                    case ":method": stream.method = value
                    case ":path": stream.path = value
                    default: if !name.hasPrefix(":") { stream.headers.append((name, value)) }
                    }
                }
            }
            if endStream {
                answer(stream, streamID: streamID)
            } else {
                streams[streamID] = stream
            }
        case .data(let streamID, let bytes, let endStream):
            guard var stream = streams.removeValue(forKey: streamID) else { return }
            if stream.body.count + bytes.readableBytes > Self.maxBody {
                write(.error(.invalidField("", "The request body is too large.")), streamID: streamID)
                core.reset(streamID: streamID, code: .noError, into: &out)
                return
            }
            stream.body.append(contentsOf: bytes.readableBytesView)
            if endStream {
                answer(stream, streamID: streamID)
            } else {
                streams[streamID] = stream
            }
        case .streamReset(let streamID, _), .streamError(_, let streamID):
            streams[streamID] = nil
        case .goAway, .peerSettingsChanged, .localSettingsAcknowledged:
            break
        }
    }

    private func answer(_ stream: PendingStream, streamID: UInt32) {
        let response = state.answer(
            method: stream.method, path: stream.path, headers: stream.headers, body: stream.body)
        write(response, streamID: streamID)
    }

    private func write(_ response: MockFCMResponse, streamID: UInt32) {
        let hasBody = !response.body.isEmpty
        let written = core.writeHeaders(streamID: streamID, endStream: !hasBody, into: &out) { block in
            // `:status` as a literal with the static table's name (index 8), then each field a
            // literal without indexing: answers are few and differ.
            block.writeInteger(UInt8(0x08))
            HTTP2Wire.writeHPACKString(String(response.status), into: &block)
            for (name, value) in response.headers {
                block.writeInteger(UInt8(0x00))
                HTTP2Wire.writeHPACKString(name, into: &block)
                HTTP2Wire.writeHPACKString(value, into: &block)
            }
        }
        guard written, hasBody else { return }
        core.writeData(streamID: streamID, bytes: response.body, endStream: true, into: &out)
    }
}
