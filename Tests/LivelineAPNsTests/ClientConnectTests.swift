import Foundation
import LivelineAPNs
import LivelineTestSupport
import NIOPosix
import Testing

/// ``APNsClient/connect(patience:)``: a run learns at its start whether APNs can be reached.
@Suite struct ClientConnectTests {
    @Test func aServerThatAnswersIsConnectedToAtOnceAndTheConnectionIsKept() async throws {
        let mock = try await MockSession.start()
        try await mock.client.connect()
        #expect(mock.client.connectionsMade == 1)
        // The pushes use the connection made for the check.
        _ = try await mock.client.send(MockSession.updateRequest(token: MockSession.token(1), timestamp: 1_800_000_000))
        #expect(mock.client.connectionsMade == 1)
        await mock.stop()
    }

    @Test func anAddressNobodyListensAtFailsOnceThePatienceIsSpentSayingWhy() async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        let client = try APNsClient(
            configuration: .init(endpoint: APNsEndpoint(host: "127.0.0.1", port: port, tls: false)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let began = ContinuousClock.now
        do {
            try await client.connect(patience: .seconds(2))
            Issue.record("connected to a port nobody listens at")
        } catch {
            // Loose bounds: with the whole suite on two cores, one attempt has waited 12 s for
            // the cooperative pool. The CLI's test, a process of its own, counts the attempts.
            let took = ContinuousClock.now - began
            #expect(took < .seconds(60), "the patience bounds the wait: \(took)")
            #expect(error.attempts >= 1)
            #expect(error.setupError == nil)
            #expect(
                error.description.hasPrefix("cannot reach http://127.0.0.1:\(port): connection refused"), "\(error)")
            #expect(error.description.contains(" in "), "\(error)")
        }
        await client.shutdown()
        withExtendedLifetime(refusing) {}
    }

    @Test func aCertificateTheClientDoesNotTrustEndsTheAttemptsAtOnce() async throws {
        let mock = try await MockSession.start()
        let client = try APNsClient(
            configuration: .init(endpoint: APNsEndpoint(host: "127.0.0.1", port: mock.server.port, tls: true)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        do {
            try await client.connect(patience: .seconds(20))
            Issue.record("connected without trusting the certificate")
        } catch {
            // One attempt, not 20 seconds of them: a certificate refused is not a server starting.
            #expect(error.attempts == 1)
            #expect(error.setupError != nil, "\(error)")
        }
        await client.shutdown()
        await mock.stop()
    }
}
