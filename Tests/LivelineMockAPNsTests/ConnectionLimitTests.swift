import Foundation
import LivelineMockAPNs
import LivelineTestSupport
import NIOCore
import Testing

/// `--max-connections`: one connection too many is closed as it arrives; those open go on,
/// and a place freed is taken again.
@Suite("Connection limit")
struct ConnectionLimitTests {
    /// Connects and says whether the mock kept the connection (it sent its SETTINGS).
    static func connectIsServed(_ server: MockAPNsServer) async -> (RawH2Client?, Bool) {
        guard let client = try? await Harness.connect(server) else { return (nil, false) }
        let settings = try? await client.waitFor(timeout: .seconds(2)) { $0.type == RawFrame.settings && !$0.isAck }
        return (client, settings != nil && client.isActive)
    }

    @Test("a connection past max-connections is closed; the open ones are served; a freed place is taken again")
    func aConnectionPastTheLimitIsClosed() async throws {
        let server = try await Harness.start { $0.maxConnections = 2 }
        let (first, firstServed) = await Self.connectIsServed(server)
        let (second, secondServed) = await Self.connectIsServed(server)
        #expect(firstServed && secondServed)

        let (third, thirdServed) = await Self.connectIsServed(server)
        #expect(!thirdServed, "the third connection is closed on arrival")
        if let third { #expect(try await third.waitForClose()) }

        // The open ones still work.
        try await first?.ackSettings()
        try await first?.send(
            type: RawFrame.ping, flags: 0, streamID: 0, payload: ByteBuffer(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(try await first?.waitFor { $0.type == RawFrame.ping && $0.isAck } != nil)

        // A place freed is taken again (the close reaches the mock a moment later).
        await second?.close()
        let servedAgain = await eventually(within: 10, every: .milliseconds(20)) {
            let (client, served) = await Self.connectIsServed(server)
            await client?.close()
            return served
        }
        #expect(servedAgain)
        await first?.close()
        await server.shutdown()
    }
}
