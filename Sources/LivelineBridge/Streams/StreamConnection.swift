import Foundation
import Liveline
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One open stream: an HTTP/1.1 GET (over TLS for `https`) whose answer is read as it arrives
/// and framed into messages.
///
/// ``open(_:group:)`` returns once the server answered 200; any other answer, a failed connect
/// or TLS, or silence past the heartbeat timeout before that, is thrown as a ``StreamError``.
/// Afterwards ``messages`` yields what the body carries and ends with the error that says why
/// the connection ended (silence is noticed by NIO's `IdleStateHandler` on the socket, so a
/// heartbeat as much as an event keeps it open). Closing it, or dropping the sequence, closes
/// the connection.
struct StreamConnection: Sendable {
    struct Request: Sendable {
        var url: FeedURL
        var headers: [FeedHeader]
        var format: StreamSettings.Format
        /// Sent as `Last-Event-ID` on an SSE stream.
        var lastEventID: String?
        var heartbeatTimeout: Millis
        var maximumMessage: Int
        var caFile: String?
    }

    let messages: AsyncThrowingStream<StreamMessage, any Error>
    private let channel: any Channel

    func close() {
        channel.close(promise: nil)
    }

    static func open(_ request: Request, group: any EventLoopGroup) async throws(StreamError) -> StreamConnection {
        let url = request.url
        let sslContext: NIOSSLContext?
        do {
            sslContext = url.tls ? try Self.tlsContext(caFile: request.caFile) : nil
        } catch {
            throw .tlsFailed(url: url, cause: "\(error)")
        }
        let eventLoop = group.next()
        let answered = eventLoop.makePromise(of: Void.self)
        let (messages, continuation) = AsyncThrowingStream<StreamMessage, any Error>.makeStream()
        let head = Self.head(for: request)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(10))
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(
                            NIOSSLClientHandler(context: sslContext, serverHostname: url.hostIsAddress ? nil : url.host)
                        )
                    }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(IdleStateHandler(readTimeout: .milliseconds(request.heartbeatTimeout)))
                    try sync.addHandler(
                        StreamReadHandler(
                            url: url, head: head, framing: Self.framing(for: request),
                            heartbeatTimeout: request.heartbeatTimeout,
                            answered: answered, continuation: continuation))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: url.host, port: url.port).get()
        } catch {
            answered.fail(error)
            continuation.finish(throwing: error)
            throw StreamError.isTLS(error)
                ? .tlsFailed(url: url, cause: StreamError.cause(of: error))
                : .connectFailed(url: url, cause: StreamError.cause(of: error))
        }
        continuation.onTermination = { _ in channel.close(promise: nil) }
        do {
            try await answered.futureResult.get()
        } catch let error as StreamError {
            channel.close(promise: nil)
            throw error
        } catch {
            channel.close(promise: nil)
            throw StreamError.isTLS(error)
                ? .tlsFailed(url: url, cause: StreamError.cause(of: error))
                : .closed(url: url, cause: StreamError.cause(of: error))
        }
        return StreamConnection(messages: messages, channel: channel)
    }

    private static func tlsContext(caFile: String?) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
        return try NIOSSLContext(configuration: configuration)
    }

    private static func framing(for request: Request) -> any StreamFraming {
        switch request.format {
        case .ndjson: NDJSONFraming(maximumMessage: request.maximumMessage)
        case .sse: ServerSentEventFraming(maximumMessage: request.maximumMessage, lastEventID: request.lastEventID)
        }
    }

    /// The GET: the bridge's own headers, then the configured ones (which may replace `Accept`
    /// or `User-Agent`).
    private static func head(for request: Request) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: request.url.target)
        let configured = Set(request.headers.map { $0.name.lowercased() })
        var defaults: [(String, String)] = [
            ("Accept", request.format == .sse ? "text/event-stream" : "application/x-ndjson, application/json"),
            ("User-Agent", "liveline"),
            ("Cache-Control", "no-cache"),
            ("Accept-Encoding", "identity"),
        ]
        if request.format == .sse, let id = request.lastEventID { defaults.append(("Last-Event-ID", id)) }
        head.headers.add(name: "Host", value: request.url.authority)
        for (name, value) in defaults where !configured.contains(name.lowercased()) {
            head.headers.add(name: name, value: value)
        }
        for header in request.headers { head.headers.add(name: header.name, value: header.value) }
        return head
    }
}

/// Sends the GET, waits for the answer's head, then frames the body into messages for the
/// stream's reader. Lives on the connection's event loop. What each event means (a refusal, the
/// stream's end, silence) is `StreamReadStateMachine`'s; the handler does the I/O.
private final class StreamReadHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let head: HTTPRequestHead
    private var framing: any StreamFraming
    private let answered: EventLoopPromise<Void>
    private let continuation: AsyncThrowingStream<StreamMessage, any Error>.Continuation
    private var machine: StreamReadStateMachine

    init(
        url: FeedURL, head: HTTPRequestHead, framing: any StreamFraming, heartbeatTimeout: Millis,
        answered: EventLoopPromise<Void>,
        continuation: AsyncThrowingStream<StreamMessage, any Error>.Continuation
    ) {
        self.head = head
        self.framing = framing
        self.answered = answered
        self.continuation = continuation
        machine = StreamReadStateMachine(url: url, heartbeatTimeout: heartbeatTimeout)
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let response):
            if machine.receivedHead(status: Int(response.status.code)) == .streaming { answered.succeed(()) }
        case .body(let buffer):
            guard machine.receivedBody(buffer.readableBytesView) else { return }
            for message in framing.feed(buffer.readableBytesView) { continuation.yield(message) }
        case .end:
            finish(context, machine.receivedEnd())
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            finish(context, machine.heartbeatTimedOut())
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context, machine.errorCaught(tls: StreamError.isTLS(error), cause: StreamError.cause(of: error)))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context, machine.channelClosed())
        context.fireChannelInactive()
    }

    private func finish(_ context: ChannelHandlerContext, _ finish: StreamReadStateMachine.Finish?) {
        guard let finish else { return }
        if finish.failOpener { answered.fail(finish.error) }
        continuation.finish(throwing: finish.error)
        context.close(promise: nil)
    }
}
