import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP/1.1 JSON inspection API (`--inspect HOST:PORT`), served on the mock's event loops.
///
/// Each connection gets an ``InspectionHTTPHandler``; requests are small and answered at once
/// from ``MockAPNsState`` under its lock.
enum InspectionServer {
    static func bind(host: String, port: Int, group: any EventLoopGroup, router: InspectionRouter) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(InspectionHTTPHandler(router: router))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}

/// Collects one HTTP/1.1 request and writes the router's JSON answer. Loop-bound.
final class InspectionHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Bodies larger than this are refused (fault plans are small).
    static let maxBody = 1 << 20

    private let router: InspectionRouter
    private var head: HTTPRequestHead?
    private var body = Data()

    init(router: InspectionRouter) {
        self.router = router
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = Data()
        case .body(var buffer):
            if body.count + buffer.readableBytes <= Self.maxBody, let bytes = buffer.readBytes(length: buffer.readableBytes) {
                body.append(contentsOf: bytes)
            }
        case .end:
            guard let requestHead = head else { return }
            head = nil
            let answer = router.respond(method: requestHead.method.rawValue, path: requestHead.uri, body: body)
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: "application/json")
            headers.add(name: "content-length", value: String(answer.body.count))
            let keepAlive = requestHead.isKeepAlive
            if !keepAlive { headers.add(name: "connection", value: "close") }
            let responseHead = HTTPResponseHead(version: requestHead.version, status: .init(statusCode: answer.status), headers: headers)
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            var buffer = context.channel.allocator.buffer(capacity: answer.body.count)
            buffer.writeBytes(answer.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }
    }
}
