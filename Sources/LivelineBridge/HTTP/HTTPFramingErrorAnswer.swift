import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP/1 decoder cannot read (a header section over NIO's 80 KiB, a
/// malformed request line or header, broken framing) in the bridge's JSON error shape, then
/// closes the connection: `431 {"error": "headers-too-large", …}` or
/// `400 {"error": "bad-http", …}`. Without it the answer is an empty 400.
///
/// It answers only between requests: once a request's head has gone up the pipeline, its
/// handler owns the answer (a body cut or mis-framed half-way is the handler's
/// `body-unreadable`), so the error is passed on.
final class HTTPFramingErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests whose head was read and whose answer has not ended.
    private var requestsOpen = 0
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { requestsOpen += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { requestsOpen = max(0, requestsOpen - 1) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, requestsOpen == 0, !answered else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        let refusal = Self.refusal(for: parserError)
        let json = refusal.jsonBytes
        var buffer = context.channel.allocator.buffer(capacity: json.count)
        buffer.writeBytes(json)
        let head = HTTPResponse(
            status: refusal.status,
            headerFields: [
                .contentType: "application/json", .contentLength: String(json.count), .connection: "close",
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(buffer)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The answer for a decoder error: 431 for a header section too large, else 400 naming
    /// what NIO's decoder found.
    static func refusal(for error: HTTPParserError) -> BridgeHTTPError {
        if case .headerOverflow = error {
            return BridgeHTTPError(
                .requestHeaderFieldsTooLarge, code: "headers-too-large",
                reason: "the request's header section is larger than this bridge reads (80 KiB of names and values)")
        }
        return BridgeHTTPError(
            .badRequest, code: "bad-http", reason: "the request is not HTTP/1.1 this bridge can read: \(error)")
    }
}
