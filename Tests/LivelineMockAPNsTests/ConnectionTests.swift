import Foundation
import Liveline
import LivelineMockAPNs
import NIOCore
import Testing

@Suite("Connection behaviour: stream limits, GOAWAY, PING")
struct ConnectionTests {
    static let maxConcurrentStreams: UInt16 = 0x3

    @Test("MAX_CONCURRENT_STREAMS is 1 until a request carries a valid token, then max-streams")
    func streamLimitRisesAfterValidToken() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let key = TestKey()
        let providerKey = key.providerKey
        let server = try await Harness.start(clock: clock) {
            $0.authentication = .keys([providerKey])
            $0.maxConcurrentStreams = 321
        }
        let client = try await Harness.connect(server)
        let initial = try #require(try await client.waitFor { $0.type == RawFrame.settings && !$0.isAck })
        #expect(initial.settings[Self.maxConcurrentStreams] == 1)
        try await client.ackSettings()

        let rejected = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(jwt: "bad.token.here"),
            body: Harness.payload(timestamp: 1))
        #expect(rejected.reason == "InvalidProviderToken")
        #expect(client.seen.filter { $0.type == RawFrame.settings && !$0.isAck }.count == 1)

        let accepted = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(jwt: key.token(at: clock.now())),
            body: Harness.payload(timestamp: 2))
        #expect(accepted.status == 200)
        let advertised = client.seen.filter { $0.type == RawFrame.settings && !$0.isAck }
            .compactMap { $0.settings[Self.maxConcurrentStreams] }
        #expect(advertised == [1, 321])
        await client.close()
        await server.shutdown()
    }

    @Test("opening more streams than allowed gets a GOAWAY with a JSON reason")
    func exceedingTheStreamLimitGetsGoAway() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        _ = try await client.waitFor { $0.type == RawFrame.settings && !$0.isAck }
        try await client.ackSettings()
        // Wait until the server has seen the ACK, so the limit of 1 is in force.
        try await client.send(
            type: RawFrame.ping, flags: 0, streamID: 0, payload: ByteBuffer(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        _ = try await client.waitFor { $0.type == RawFrame.ping && $0.isAck }
        // Two requests whose bodies never end: both streams stay open.
        let headers = Harness.headers()
        try await client.openWithoutEnd(path: "/3/device/\(Harness.token)", headers: headers)
        try await client.openWithoutEnd(path: "/3/device/\(Harness.token)", headers: headers)
        let goAway = try #require(try await client.waitFor { $0.type == RawFrame.goAway })
        #expect(goAway.goAway?.debug == #"{"reason":"TooManyConcurrentStreams"}"#)
        #expect(goAway.goAway?.lastStreamID == 1)
        #expect(goAway.goAway?.errorCode == 1)
        #expect(try await client.waitForClose())
        await client.close()
        await server.shutdown()
    }

    @Test("PINGs are answered")
    func pingsAreAnswered() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        let data: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
        try await client.send(type: RawFrame.ping, flags: 0, streamID: 0, payload: ByteBuffer(bytes: data))
        let ack = try #require(try await client.waitFor { $0.type == RawFrame.ping && $0.isAck })
        #expect(Array(buffer: ack.payload) == data)
        await client.close()
        await server.shutdown()
    }

    @Test("shutdown sends GOAWAY {\"reason\":\"Shutdown\"} and closes the connection")
    func shutdownSendsGoAway() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        let response = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(), body: Harness.payload(timestamp: 1))
        #expect(response.status == 200)
        await server.shutdown()
        let goAway = try #require(try await client.waitFor { $0.type == RawFrame.goAway })
        #expect(goAway.goAway?.debug == #"{"reason":"Shutdown"}"#)
        #expect(goAway.goAway?.errorCode == 0)
        #expect(try await client.waitForClose())
    }
}

extension RawH2Client {
    /// Opens a stream with a HEADERS frame that does not end it.
    func openWithoutEnd(path: String, headers: [(String, String)]) async throws {
        try await open(path: path, headers: headers, body: nil, endStream: false)
    }
}
