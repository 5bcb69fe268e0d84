import Crypto
import Foundation
import Liveline
import LivelineAPNs
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import Testing

/// The client's own HTTP/2 framing against swift-nio-http2's server: a peer written elsewhere,
/// set up to be strict (small windows, few streams, a small header table).
@Suite struct HTTP2InteropTests {
    @Test func requestsLargerThanTheWindowsArriveWholeWithinTheStreamLimit() async throws {
        let server = try await EchoServer.start(settings: [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 8),
            HTTP2Setting(parameter: .initialWindowSize, value: 300),
            HTTP2Setting(parameter: .headerTableSize, value: 256),
        ])
        let key = try SigningKey(
            pem: P256.Signing.PrivateKey().pemRepresentation, keyID: "ABCDEFGHIJ", teamID: "TEAMID1234")
        let client = try APNsClient(
            // 300 requests wait their turn for 8 streams: the last is answered seconds after it
            // was sent on a slow machine (a sanitizer build), so the timeout is generous.
            configuration: .init(
                endpoint: APNsEndpoint(url: "http://127.0.0.1:\(server.port)"), signingKey: key,
                requestTimeout: .seconds(60)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton
        )
        let headers = PushHeaders(topic: "com.example.app.push-type.liveactivity", priority: .low, expiration: 0)
        // 300 requests × 700 bytes: each body is larger than a stream's window, and together
        // they are three times the connection's.
        let results = try await withThrowingTaskGroup(of: (Int, APNsResponse).self) { group in
            for i in 0..<300 {
                group.addTask {
                    let body = Array(String(format: "%04d", i).utf8) + Array(repeating: UInt8(ascii: "x"), count: 696)
                    return (
                        i,
                        try await client.send(.push(token: String(format: "%064x", i), headers: headers, payload: body))
                    )
                }
            }
            return try await group.reduce(into: [(Int, APNsResponse)]()) { $0.append($1) }
        }
        #expect(results.count == 300)
        for (i, response) in results {
            #expect(response.status == 200)
            #expect(response.apnsID == String(format: "id-%064x", i))
            #expect(response.body.count == 700)
            #expect(response.body.prefix(4) == ArraySlice(String(format: "%04d", i).utf8))
        }
        let seen = server.seen
        #expect(seen.requests == 300)
        #expect(seen.maxOpen <= 8)
        #expect(seen.headers.allSatisfy { $0[":method"] == "POST" && $0[":scheme"] == "http" })
        #expect(seen.headers.allSatisfy { $0["authorization"]?.hasPrefix("bearer ey") == true })
        #expect(
            seen.headers.allSatisfy {
                $0["apns-topic"] == "com.example.app.push-type.liveactivity" && $0["apns-priority"] == "5"
            })
        #expect(Set(seen.headers.compactMap { $0[":path"] }).count == 300)
        await client.shutdown()
        try await server.stop()
    }

    @Test func aStreamResetByTheServerFailsThatRequestOnly() async throws {
        let server = try await EchoServer.start(settings: [HTTP2Setting(parameter: .maxConcurrentStreams, value: 100)])
        let client = try APNsClient(
            configuration: .init(endpoint: APNsEndpoint(url: "http://127.0.0.1:\(server.port)")),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton
        )
        let headers = PushHeaders(topic: "com.example.app.push-type.liveactivity", priority: .high, expiration: 0)
        await #expect(throws: APNsTransportError.self) {
            _ = try await client.send(.push(token: "reset", headers: headers, payload: Array("{}".utf8)))
        }
        let response = try await client.send(.push(token: "ok", headers: headers, payload: Array("{}".utf8)))
        #expect(response.status == 200)
        #expect(client.connectionsMade == 1)
        await client.shutdown()
        try await server.stop()
    }
}

/// An h2c server on swift-nio-http2 that answers each request with `200`, `apns-id: id-<token>`
/// and the request body, and resets the stream of `/3/device/reset`.
private final class EchoServer: Sendable {
    struct Seen {
        var requests = 0
        var open = 0
        var maxOpen = 0
        var headers: [[String: String]] = []
    }

    let channel: any Channel
    let state: NIOLockedValueBox<Seen>
    var port: Int { channel.localAddress?.port ?? 0 }
    var seen: Seen { state.withLockedValue { $0 } }

    private init(channel: any Channel, state: NIOLockedValueBox<Seen>) {
        self.channel = channel
        self.state = state
    }

    static func start(settings: [HTTP2Setting]) async throws -> EchoServer {
        let state = NIOLockedValueBox(Seen())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.configureHTTP2Pipeline(mode: .server, initialLocalSettings: settings) { stream in
                    stream.pipeline.addHandler(EchoStream(state: state))
                }.map { _ in }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return EchoServer(channel: channel, state: state)
    }

    func stop() async throws {
        try await channel.close()
    }
}

private final class EchoStream: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    let state: NIOLockedValueBox<EchoServer.Seen>
    var path = ""
    var body = ByteBuffer()

    init(state: NIOLockedValueBox<EchoServer.Seen>) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            var fields: [String: String] = [:]
            for (name, value, _) in headers.headers { fields[name] = value }
            path = fields[":path"] ?? ""
            state.withLockedValue { seen in
                seen.requests += 1
                seen.open += 1
                seen.maxOpen = max(seen.maxOpen, seen.open)
                seen.headers.append(fields)
            }
            if headers.endStream { respond(context: context) }
        case .data(let data):
            if case .byteBuffer(var bytes) = data.data { body.writeBuffer(&bytes) }
            if data.endStream { respond(context: context) }
        default:
            break
        }
    }

    private func respond(context: ChannelHandlerContext) {
        state.withLockedValue { $0.open -= 1 }
        let token = path.split(separator: "/").last.map(String.init) ?? ""
        if token == "reset" {
            context.writeAndFlush(wrapOutboundOut(.rstStream(.refusedStream)), promise: nil)
            return
        }
        let headers: HPACKHeaders = [":status": "200", "apns-id": "id-" + token]
        context.write(
            wrapOutboundOut(.headers(.init(headers: headers, endStream: body.readableBytes == 0))), promise: nil)
        if body.readableBytes > 0 {
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        }
        context.flush()
    }
}
