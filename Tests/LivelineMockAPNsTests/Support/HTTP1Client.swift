import Foundation
import LivelineTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A plain HTTP/1.1 client over a loopback socket, for the dashboard's page and its event stream.
/// It keeps every byte it reads, decodes chunked bodies and splits Server-Sent Events, so tests
/// see the wire as a browser would.
final class HTTP1Client: Sendable {
    private final class Reader: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let bytes: NIOLockedValueBox<[UInt8]>
        let closed: NIOLockedValueBox<Bool>
        init(bytes: NIOLockedValueBox<[UInt8]>, closed: NIOLockedValueBox<Bool>) {
            self.bytes = bytes
            self.closed = closed
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            bytes.withLockedValue { $0 += buffer.readableBytesView }
        }
        func channelInactive(context: ChannelHandlerContext) { closed.withLockedValue { $0 = true } }
    }

    private let channel: any Channel
    private let bytes: NIOLockedValueBox<[UInt8]>
    private let closed: NIOLockedValueBox<Bool>

    private init(channel: any Channel, bytes: NIOLockedValueBox<[UInt8]>, closed: NIOLockedValueBox<Bool>) {
        self.channel = channel
        self.bytes = bytes
        self.closed = closed
    }

    /// Connects and sends `GET path`.
    static func get(port: Int, path: String) async throws -> HTTP1Client {
        let bytes = NIOLockedValueBox<[UInt8]>([])
        let closed = NIOLockedValueBox(false)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Reader(bytes: bytes, closed: closed))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        var request = channel.allocator.buffer(capacity: 128)
        request.writeString(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream, text/html\r\n\r\n")
        try await channel.writeAndFlush(request)
        return HTTP1Client(channel: channel, bytes: bytes, closed: closed)
    }

    /// The response head (status line and headers) and the decoded body so far.
    func response() -> (head: String, body: [UInt8])? {
        let all = bytes.withLockedValue { $0 }
        guard let end = Self.find([13, 10, 13, 10], in: all, from: 0) else { return nil }
        let head = String(decoding: all[..<end], as: UTF8.self)
        let raw = Array(all[(end + 4)...])
        guard head.lowercased().contains("transfer-encoding: chunked") else { return (head, raw) }
        var body: [UInt8] = []
        var index = 0
        while let lineEnd = Self.find([13, 10], in: raw, from: index),
            let size = Int(String(decoding: raw[index..<lineEnd], as: UTF8.self), radix: 16), size > 0,
            lineEnd + 2 + size <= raw.count
        {
            body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
        }
        return (head, body)
    }

    /// The complete Server-Sent Events received so far: (event name, data).
    func events() -> [(event: String, data: String)] {
        guard let body = response()?.body else { return [] }
        let text = String(decoding: body, as: UTF8.self)
        var events: [(String, String)] = []
        for block in text.components(separatedBy: "\n\n").dropLast() {
            var name = "message", data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            if !data.isEmpty { events.append((name, data.joined(separator: "\n"))) }
        }
        return events
    }

    /// Waits (on the wall clock, as a page would) until `condition` holds for what was received.
    func wait(upTo seconds: Double = 5, until condition: (HTTP1Client) -> Bool) async -> Bool {
        await eventually(within: seconds, every: .milliseconds(20)) { condition(self) }
    }

    var isClosed: Bool { closed.withLockedValue { $0 } }

    func close() async {
        try? await channel.close()
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where Array(haystack[index..<(index + needle.count)]) == needle {
            return index
        }
        return nil
    }
}
