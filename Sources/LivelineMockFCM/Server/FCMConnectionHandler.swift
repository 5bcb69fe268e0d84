import LivelineHTTP2
import NIOCore

/// Serves FCM's HTTP v1 API and the token endpoint on one HTTP/2 connection: a thin NIO adapter
/// around ``HTTP2ConnectionCore`` (the protocol's rules, shared with the APNs client and mock)
/// that gathers each request's header block and body and answers it from ``MockFCMState``. What
/// every server on the core does the same way (the output, the preface, a request's body kept up
/// to a limit, writing an answer) is ``HTTP2ServerHandler``'s and ``PendingRequest``'s, as for
/// the mock APNs.
///
/// **Concurrency.** Loop-bound: NIO calls it only on its channel's event loop, so its streams
/// need no lock; what connections share lives in ``MockFCMState``.
final class FCMConnectionHandler: HTTP2ServerHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What the mock reads of a request's header block.
    struct Head {
        var method = ""
        var path = ""
        var headers: [(name: String, value: String)] = []
    }

    /// The largest body the mock reads; FCM's request limit is far below it.
    static let maxBody = 1 << 20
    static let maxHeaderListSize = 16_384

    private let state: MockFCMState
    private var core: HTTP2ConnectionCore
    var output = ByteBuffer()
    private var streams: [UInt32: PendingRequest<Head>] = [:]
    private var closed = false
    /// The connection's last `messages:send` body, for the next that differs only in its target.
    private var memo = FCMBodyMemo()

    init(state: MockFCMState, maxConcurrentStreams: Int) {
        self.state = state
        var settings = ConnectionSettings()
        settings.maxConcurrentStreams = max(1, maxConcurrentStreams)
        settings.maxHeaderListSize = Self.maxHeaderListSize
        core = HTTP2ConnectionCore(
            role: .server, settings: settings, connectionWindow: 1 << 20, maxHeaderListSize: Self.maxHeaderListSize)
    }

    func connectionOpened(context: ChannelHandlerContext) {
        core.start(into: &output)
        flushOutput(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        core.append(unwrapInboundIn(data))
        do throws(HTTP2ProtocolError) {
            while let event = try core.nextEvent(into: &output) {
                handle(event)
            }
        } catch {
            closed = true
            if error != .badPreface { core.goAway(error.code, debug: Array(error.why.utf8), into: &output) }
            closeAfterOutput(context: context)
        }
    }

    private func handle(_ event: HTTP2Event) {
        switch event {
        case .headers(let streamID, let fields, let endStream, let opened):
            // Past the limit the client has acknowledged, the stream is refused (RFC 9113 §5.1.2);
            // the client may send it again.
            if opened, core.streams.count > core.localSettings.maxConcurrentStreams ?? Int.max {
                core.reset(streamID: streamID, code: .refusedStream, into: &output)
                return
            }
            var stream: PendingRequest<Head>
            if opened {
                var head = Head()
                for (name, value) in fields {
                    switch name {
                    case ":method": head.method = value
                    case ":path": head.path = value
                    default: if !name.hasPrefix(":") { head.headers.append((name, value)) }
                    }
                }
                stream = PendingRequest(head: head, limit: Self.maxBody)
            } else {
                stream = streams.removeValue(forKey: streamID) ?? PendingRequest(head: Head(), limit: Self.maxBody)
            }
            if endStream {
                answer(stream, streamID: streamID)
            } else {
                streams[streamID] = stream
            }
        case .data(let streamID, let bytes, let endStream):
            guard var stream = streams.removeValue(forKey: streamID) else { return }
            stream.append(bytes)
            if stream.isOverLimit {
                write(.error(.invalidField("", "The request body is too large.")), streamID: streamID)
                core.reset(streamID: streamID, code: .noError, into: &output)
                return
            }
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

    private func answer(_ stream: PendingRequest<Head>, streamID: UInt32) {
        let head = stream.head
        let response = state.answer(
            method: head.method, path: head.path, headers: head.headers,
            body: stream.body.map { Array($0.readableBytesView) } ?? [], memo: &memo)
        write(response, streamID: streamID)
    }

    private func write(_ response: MockFCMResponse, streamID: UInt32) {
        core.writeResponse(streamID: streamID, body: response.body, into: &output) { block in
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
    }
}
