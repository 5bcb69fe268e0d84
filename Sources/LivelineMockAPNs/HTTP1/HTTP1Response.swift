import NIOCore
import NIOHTTP1

/// Writes one whole HTTP/1.1 answer with its length, and closes the connection after it when
/// the request did not keep it alive. A `HEAD` request gets the head only.
enum HTTP1Response {
    static func send(
        _ status: Int, type: String, body: [UInt8], headers extra: [(String, String)] = [],
        to request: HTTPRequestHead, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: type)
        headers.add(name: "content-length", value: String(body.count))
        headers.add(contentsOf: extra)
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: request.version, status: .init(statusCode: status), headers: headers)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        if request.method != .HEAD {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
