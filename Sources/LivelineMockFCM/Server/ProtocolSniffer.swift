import NIOCore
import NIOHTTP1

/// Serves HTTP/2 (with prior knowledge) and HTTP/1.1 on one port, as Google's front end does:
/// the first bytes decide. A connection that starts with HTTP/2's preface gets an
/// ``FCMConnectionHandler``; any other gets NIO's HTTP/1.1 server and an ``FCMHTTP1Handler``
/// (the Admin SDKs send with HTTP/1.1, and so does the token exchange of most OAuth clients).
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let state: MockFCMState
    private var seen: ByteBuffer?

    init(state: MockFCMState) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if var seen {
            seen.writeBuffer(&bytes)
            self.seen = seen
        } else {
            seen = bytes
        }
        guard let seen, seen.readableBytes >= 4 else { return }
        let isHTTP2 = seen.readableBytesView.starts(with: "PRI ".utf8)
        self.seen = nil
        do {
            let pipeline = context.pipeline.syncOperations
            if isHTTP2 {
                try pipeline.addHandler(
                    FCMConnectionHandler(state: state, maxConcurrentStreams: state.configuration.maxConcurrentStreams),
                    position: .after(self))
            } else {
                let handlers: [any ChannelHandler] = [
                    ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)),
                    HTTPResponseEncoder(), FCMHTTP1Handler(state: state),
                ]
                try pipeline.addHandlers(handlers, position: .after(self))
            }
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(wrapInboundOut(seen))
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}

/// Answers FCM's API over HTTP/1.1, one request at a time, from ``MockFCMState``. Loop-bound.
final class FCMHTTP1Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: MockFCMState
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    /// The connection's last `messages:send` body, for the next that differs only in its target.
    private var memo = FCMBodyMemo()

    init(state: MockFCMState) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
            tooLarge = false
        case .body(let buffer):
            if body.count + buffer.readableBytes > FCMConnectionHandler.maxBody {
                tooLarge = true
            } else {
                body.append(contentsOf: buffer.readableBytesView)
            }
        case .end:
            guard let request = head else { return }
            head = nil
            let response =
                tooLarge
                ? MockFCMResponse.error(.invalidField("", "The request body is too large."))
                : state.answer(
                    method: request.method.rawValue, path: request.uri,
                    headers: request.headers.map { ($0.name, $0.value) }, body: body, memo: &memo)
            send(response, to: request, context: context)
        }
    }

    private func send(_ response: MockFCMResponse, to request: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers)
        headers.add(name: "content-length", value: String(response.body.count))
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(
            version: request.version, status: .init(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
