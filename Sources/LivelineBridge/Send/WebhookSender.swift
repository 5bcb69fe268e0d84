import Foundation
import HTTPTypes
import LivelineAPNs
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Posts one webhook over HTTP/1.1 (`http://` or `https://`) and returns the answer, for
/// `liveline bridge send` and the bridge's own end-to-end tests; a stream source fetches its
/// recovery timeline with it too (a GET).
///
/// One connection per request, closed after the answer (`Connection: close`): a sender of
/// single test webhooks needs nothing more, and nothing is left open between runs. The body is
/// sent with a `Content-Length`, exactly as given, so the signature made over it holds.
/// Answers over `maximumAnswer` (1 MiB by default) are cut there (the bridge's own answers are
/// a few hundred bytes); ``Answer/truncated`` says so.
public struct WebhookSender: Sendable {
    /// What the server answered.
    public struct Answer: Sendable, Hashable {
        /// The HTTP status.
        public var status: Int
        /// The answer's header fields.
        public var headers: HTTPFields
        /// The answer's body, up to the limit read.
        public var body: [UInt8]
        /// Whether the body was cut at the sender's `maximumAnswer`.
        public var truncated: Bool

        /// An answer with the parts given.
        public init(status: Int, headers: HTTPFields, body: [UInt8], truncated: Bool = false) {
            self.status = status
            self.headers = headers
            self.body = body
            self.truncated = truncated
        }

        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let group: any EventLoopGroup
    private let timeout: TimeAmount
    private let maximumAnswer: Int
    private let caFile: String?

    /// - Parameters:
    ///   - group: where the connection runs; NIO's shared group by default.
    ///   - timeout: the longest wait for the whole exchange, connecting included.
    ///   - maximumAnswer: the most bytes of an answer's body kept.
    ///   - caFile: PEM certificates trusted besides the system's, for https.
    public init(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, timeout: Duration = .seconds(30),
        maximumAnswer: Int = 1 << 20, caFile: String? = nil
    ) {
        self.group = group
        self.maximumAnswer = max(0, maximumAnswer)
        self.caFile = caFile
        let (seconds, attoseconds) = timeout.components
        self.timeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Sends `body` with `headers` to `url` with `method` (POST by default) and waits for the answer.
    public func send(
        to url: String, method: HTTPRequest.Method = .post, headers: HTTPFields, body: [UInt8]
    ) async throws(WebhookSendError) -> Answer {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { throw WebhookSendError("\(url) is not an http:// or https:// URL") }
        let tls = scheme == "https"
        let port = components.port ?? (tls ? 443 : 80)
        let path =
            (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
            + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let isIPAddress = bareHost.contains(":") || bareHost.allSatisfy { $0.isNumber || $0 == "." }

        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method.rawValue), uri: path)
        let authority = bareHost.contains(":") ? "[\(bareHost)]" : bareHost
        head.headers.add(name: "Host", value: port == (tls ? 443 : 80) ? authority : "\(authority):\(port)")
        let replaced: Set<String> = ["host", "content-length", "connection"]
        for field in headers where !replaced.contains(field.name.canonicalName) {
            head.headers.add(name: field.name.rawName, value: field.value)
        }
        if headers[.userAgent] == nil { head.headers.add(name: "User-Agent", value: "liveline") }
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")

        let sslContext: NIOSSLContext?
        do {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
            sslContext = tls ? try NIOSSLContext(configuration: configuration) : nil
        } catch {
            throw WebhookSendError("TLS cannot be set up: \(error)")
        }
        let eventLoop = group.next()
        let promise = eventLoop.makePromise(of: Answer.self)
        let request = ExchangeHandler.Request(head: head, body: body)
        let timeout = timeout, maximumAnswer = maximumAnswer
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(min(timeout, .seconds(10)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(
                            NIOSSLClientHandler(context: sslContext, serverHostname: isIPAddress ? nil : bareHost))
                    }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(
                        ExchangeHandler(
                            request: request, promise: promise, timeout: timeout, maximumBody: maximumAnswer))
                }
            }
        do {
            _ = try await bootstrap.connect(host: bareHost, port: port).get()
        } catch {
            promise.fail(error)
            throw WebhookSendError(
                "cannot connect to \(authority):\(port): \(ConnectFailure.cause(of: error) ?? "\(error)")")
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as WebhookSendError {
            throw error
        } catch {
            throw WebhookSendError("no answer from \(authority):\(port): \(error)")
        }
    }
}

/// Writes one request when the connection is up and collects the answer; closes the connection
/// when the answer is complete, fails, or takes longer than the timeout.
private final class ExchangeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    struct Request: Sendable {
        var head: HTTPRequestHead
        var body: [UInt8]
    }

    private let maximumBody: Int
    private let request: Request
    private let promise: EventLoopPromise<WebhookSender.Answer>
    private let timeout: TimeAmount
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var truncated = false
    private var done = false
    private var timer: Scheduled<Void>?

    init(request: Request, promise: EventLoopPromise<WebhookSender.Answer>, timeout: TimeAmount, maximumBody: Int) {
        self.maximumBody = maximumBody
        self.request = request
        self.promise = promise
        self.timeout = timeout
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = loopBound.value
            handler.finish(
                context, .failure(WebhookSendError("no answer within \(handler.timeout.nanoseconds / 1_000_000) ms")))
        }
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: request.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // An interim answer (100 Continue) is not the answer.
            if head.status.code >= 200 { self.head = head }
        case .body(let buffer):
            let room = maximumBody - body.count
            if buffer.readableBytes > room { truncated = true }
            if room > 0 { body.append(contentsOf: buffer.readableBytesView.prefix(room)) }
        case .end:
            guard let head else { return }
            var fields = HTTPFields()
            for (name, value) in head.headers {
                if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
            }
            finish(
                context,
                .success(
                    WebhookSender.Answer(
                        status: Int(head.status.code), headers: fields, body: body, truncated: truncated)))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context, .failure(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context, .failure(WebhookSendError("the connection closed before the answer was complete")))
        context.fireChannelInactive()
    }

    private func finish(_ context: ChannelHandlerContext, _ result: Result<WebhookSender.Answer, any Error>) {
        guard !done else { return }
        done = true
        timer?.cancel()
        promise.completeWith(result)
        context.close(promise: nil)
    }
}
