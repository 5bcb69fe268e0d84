import Foundation
import LivelineMockAPNs
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import Testing

/// The mock's HTTP/2 (the shared connection core) against swift-nio-http2's client, a peer
/// written elsewhere, set up to be strict: tiny stream windows, a small header table, many
/// streams at once.
@Suite("Interoperability with swift-nio-http2's client")
struct NIOHTTP2ClientInteropTests {
    @Test("many concurrent requests with tiny windows get their answers, bodies and all")
    func concurrentRequestsWithTinyWindows() async throws {
        let server = try await Harness.start { $0.maxConcurrentStreams = 20 }
        let client = try await NIOH2Client.connect(
            port: server.port,
            settings: [
                HTTP2Setting(parameter: .initialWindowSize, value: 7),
                HTTP2Setting(parameter: .headerTableSize, value: 64),
                HTTP2Setting(parameter: .maxFrameSize, value: 16_384),
            ])
        let payload = Harness.payload(timestamp: Harness.seconds(Harness.epoch))
        // The first request raises the stream limit (a valid token); the rest go 60 at once.
        let first = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(), body: payload)
        #expect(first.status == 200)
        let answers = try await withThrowingTaskGroup(of: NIOH2Client.Answer.self) { group in
            for i in 0..<60 {
                // Every third one is rejected, so its JSON body must squeeze through 7-byte windows.
                let topic = i % 3 == 0 ? "com.example.other" : Harness.topic
                group.addTask {
                    try await client.request(
                        path: "/3/device/\(Harness.token)", headers: Harness.headers(topic: topic), body: payload)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 60)
        #expect(answers.filter { $0.status == 200 }.count == 40)
        let rejected = answers.filter { $0.status == 400 }
        #expect(rejected.count == 20)
        #expect(rejected.allSatisfy { $0.body == #"{"reason":"DeviceTokenNotForTopic"}"# })
        #expect(answers.allSatisfy { $0.headers["apns-id"] != nil })
        await client.close()
        await server.shutdown()
    }
}

/// An h2c client on swift-nio-http2 (NIOHTTP2Handler with its stream multiplexer).
///
/// `@unchecked Sendable`: the multiplexer is set once before `connect` returns and only used
/// through `createStreamChannel`, which swift-nio-http2 allows from any thread.
final class NIOH2Client: @unchecked Sendable {
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    private let channel: any Channel
    private let multiplexer: HTTP2StreamMultiplexer

    private init(channel: any Channel, multiplexer: HTTP2StreamMultiplexer) {
        self.channel = channel
        self.multiplexer = multiplexer
    }

    static func connect(port: Int, settings: HTTP2Settings) async throws -> NIOH2Client {
        let box = MultiplexerBox()
        let channel = try await ClientBootstrap(group: Harness.clientGroup)
            .channelInitializer { channel in
                channel.configureHTTP2Pipeline(
                    mode: .client, initialLocalSettings: settings, inboundStreamInitializer: nil
                ).map { multiplexer in
                    box.value = multiplexer
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        guard let multiplexer = box.value else { throw RawH2Error(description: "no multiplexer") }
        return NIOH2Client(channel: channel, multiplexer: multiplexer)
    }

    func close() async {
        try? await channel.close()
    }

    /// One request; an answer with status 0 when the stream or connection ended without one.
    func request(path: String, headers: [(String, String)], body: String) async throws -> Answer {
        let promise = channel.eventLoop.makePromise(of: Answer.self)
        var fields = HPACKHeaders([
            (":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path),
        ])
        for (name, value) in headers { fields.add(name: name, value: value) }
        let request = fields
        let created = channel.eventLoop.makePromise(of: (any Channel).self)
        multiplexer.createStreamChannel(promise: created) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(AnswerCollector(promise: promise))
            }
        }
        // Written once the stream is active; a write from the initializer would be dropped.
        created.futureResult.whenComplete { result in
            switch result {
            case .success(let stream):
                stream.write(HTTP2Frame.FramePayload.headers(.init(headers: request)), promise: nil)
                stream.writeAndFlush(
                    HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(string: body)), endStream: true)),
                    promise: nil)
            case .failure(let error):
                promise.fail(error)
            }
        }
        return try await promise.futureResult.get()
    }
}

/// Carries the multiplexer out of the channel initializer, which runs before `connect` completes.
private final class MultiplexerBox: @unchecked Sendable {
    var value: HTTP2StreamMultiplexer?
}

/// Collects one stream's answer.
private final class AnswerCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let promise: EventLoopPromise<NIOH2Client.Answer>
    private var answer = NIOH2Client.Answer(status: 0, headers: [:], body: "")

    init(promise: EventLoopPromise<NIOH2Client.Answer>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            for (name, value, _) in headers.headers {
                if name == ":status" { answer.status = Int(value) ?? 0 } else { answer.headers[name] = value }
            }
            if headers.endStream { promise.succeed(answer) }
        case .data(let data):
            if case .byteBuffer(let bytes) = data.data { answer.body += String(buffer: bytes) }
            if data.endStream { promise.succeed(answer) }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.succeed(answer)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.succeed(answer)
        context.close(promise: nil)
    }
}
