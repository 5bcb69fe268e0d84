import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP/1.1 JSON inspection API (`--inspect HOST:PORT`), served on the mock's event loops.
///
/// Each connection gets an ``InspectionHTTPHandler``; requests are small and answered at once
/// from ``MockAPNsState`` under its lock.
enum InspectionServer {
    static func bind(
        host: String, port: Int, group: any EventLoopGroup, router: InspectionRouter
    ) async throws -> any Channel {
        try await HTTP1Server.bind(host: host, port: port, group: group) { InspectionHTTPHandler(router: router) }
    }
}

/// Collects one HTTP/1.1 request and writes the router's JSON answer. Loop-bound.
final class InspectionHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Bodies larger than this are refused (fault plans are small).
    static let maxBody = 1 << 20

    private let router: InspectionRouter
    private var requests = HTTP1RequestAssembler(maxBody: InspectionHTTPHandler.maxBody)

    init(router: InspectionRouter) {
        self.router = router
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let request = requests.take(unwrapInboundIn(data)) else { return }
        let answer = router.respond(
            method: request.head.method.rawValue, path: request.head.uri, body: Data(request.body))
        HTTP1Response.send(
            answer.status, type: "application/json", body: Array(answer.body), to: request.head, context: context)
    }
}
