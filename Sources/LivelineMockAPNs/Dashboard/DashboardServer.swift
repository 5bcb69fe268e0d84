import Foundation
import Liveline
import NIOCore
import NIOHTTP1

/// The dashboard's HTTP/1.1 listener (`--dashboard HOST:PORT`), on the mock's event loops.
///
/// | request | answer |
/// |---|---|
/// | `GET /` | the page (HTML, CSS and JavaScript in one document, nothing fetched elsewhere) |
/// | `GET /events?q=SEARCH` | Server-Sent Events: a `frame` event (``DashboardFrame``) at once, then whenever pushes land, at most every ``DashboardConfiguration/frameInterval`` |
/// | `GET /frame?q=SEARCH` | one frame as JSON, for scripts |
enum DashboardServer {
    static func bind(
        host: String, port: Int, group: any EventLoopGroup, broadcaster: DashboardBroadcaster
    ) async throws -> any Channel {
        try await HTTP1Server.bind(
            host: host, port: port, group: group,
            options: { bootstrap in
                bootstrap
                    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                    // A page that stops reading backs up here, not in the mock's memory: once this much
                    // is queued the channel turns unwritable and the page's frames are skipped.
                    .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
            }
        ) {
            DashboardHTTPHandler(broadcaster: broadcaster)
        }
    }

    /// Ticks the broadcaster on one of the group's loops until the returned task is cancelled.
    static func startTicking(
        _ broadcaster: DashboardBroadcaster, every interval: Millis, on loop: any EventLoop
    ) -> RepeatedTask {
        loop.scheduleRepeatedTask(
            initialDelay: .milliseconds(Int64(interval)), delay: .milliseconds(Int64(max(50, interval)))
        ) { _ in
            broadcaster.tick()
        }
    }
}

/// Answers one dashboard request; an `/events` request keeps its connection as an event stream
/// that ``DashboardBroadcaster`` writes to. Loop-bound.
final class DashboardHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let broadcaster: DashboardBroadcaster
    private var requests = HTTP1RequestAssembler(maxBody: 0)
    private var streaming = false

    init(broadcaster: DashboardBroadcaster) {
        self.broadcaster = broadcaster
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let request = requests.take(unwrapInboundIn(data)), !streaming else { return }
        respond(to: request, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if streaming { broadcaster.remove(context.channel) }
        context.fireChannelInactive()
    }

    private func respond(to whole: HTTP1Request, context: ChannelHandlerContext) {
        let request = whole.head
        let (path, query) = whole.target
        guard request.method == .GET || request.method == .HEAD else {
            return send(
                405, type: "text/plain; charset=utf-8", body: Array("only GET\n".utf8), request: request,
                context: context)
        }
        switch path {
        case "/", "/index.html":
            send(200, type: "text/html; charset=utf-8", body: DashboardPage.bytes, request: request, context: context)
        case "/events":
            streaming = true
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: "text/event-stream; charset=utf-8")
            headers.add(name: "cache-control", value: "no-store")
            headers.add(name: "x-accel-buffering", value: "no")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers))),
                promise: nil)
            var buffer = context.channel.allocator.buffer(capacity: 32)
            buffer.writeString("retry: 1000\n\n")
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            broadcaster.add(context.channel, query: query["q"] ?? "")
        case "/frame":
            var bytes = broadcaster.frame(query: query["q"] ?? "")
            // The event's `data:` line alone, as plain JSON.
            if let start = bytes.firstIndex(of: UInt8(ascii: "{")) { bytes.removeFirst(start) }
            while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            send(200, type: "application/json", body: bytes, request: request, context: context)
        default:
            send(
                404, type: "text/plain; charset=utf-8", body: Array("not found; the dashboard is at /\n".utf8),
                request: request, context: context)
        }
    }

    /// A whole answer; the page's answers are never cached.
    private func send(
        _ status: Int, type: String, body: [UInt8], request: HTTPRequestHead, context: ChannelHandlerContext
    ) {
        HTTP1Response.send(
            status, type: type, body: body, headers: [("cache-control", "no-store")], to: request, context: context)
    }
}
