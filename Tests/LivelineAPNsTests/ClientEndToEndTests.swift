import Crypto
import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import NIOCore
import NIOPosix
import Testing

/// The client against the mock APNs, over TLS on loopback.
@Suite(.serialized) struct ClientEndToEndTests {
    @Test func aPushWithAValidTokenIsAcceptedOverTLS() async throws {
        let session = try await MockSession.start()
        let token = MockSession.token(1)
        let response = try await session.client.send(MockSession.updateRequest(token: token, timestamp: Int64(Date().timeIntervalSince1970)))
        #expect(response.status == 200)
        #expect(response.apnsID != nil)
        #expect(session.server.activity(token: token)?.counters.rendered == 1)
        await session.stop()
    }

    @Test func theStreamLimitRisesAfterAValidTokenAndManyRequestsShareOneConnection() async throws {
        let session = try await MockSession.start(configure: { $0.maxConcurrentStreams = 50 })
        let now = Int64(Date().timeIntervalSince1970)
        let responses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<200 {
                group.addTask { try await session.client.send(MockSession.updateRequest(token: MockSession.token(i), timestamp: now)).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(responses.count == 200)
        #expect(responses.allSatisfy { $0 == 200 })
        #expect(session.client.connectionsMade == 1)
        await session.stop()
    }

    @Test func anExpiredProviderTokenIsRenewedOnceAndTheRequestRetried() async throws {
        let calls = Counter()
        let realNow = Int64(Date().timeIntervalSince1970)
        // The first token is signed two hours in the past, so APNs calls it expired.
        let session = try await MockSession.start(clientNow: { calls.next() == 0 ? realNow - 7200 : realNow })
        let response = try await session.client.send(MockSession.updateRequest(token: MockSession.token(2), timestamp: realNow))
        #expect(response.status == 200)
        #expect(session.server.stats().reasons["ExpiredProviderToken"] == 1)
        #expect(session.server.stats().statuses["200"] == 1)
        await session.stop()
    }

    @Test func aWrongKeyIDIsAConfigurationErrorThatSaysHowToFixIt() async throws {
        let session = try await MockSession.start()
        let wrong = try APNsClient(configuration: .init(
            endpoint: session.client.configuration.endpoint,
            signingKey: try SigningKey(pem: P256.Signing.PrivateKey().pemRepresentation, keyID: "ZZZZZZZZZZ", teamID: MockSession.teamID)
        ), eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let response = try await wrong.send(MockSession.updateRequest(token: MockSession.token(3), timestamp: Int64(Date().timeIntervalSince1970)))
        #expect(response.status == 403)
        guard case .configurationError(let advice) = APNsDisposition(response) else {
            Issue.record("not a configuration error: \(response)")
            return
        }
        #expect(advice.contains("--key-id"))
        await wrong.shutdown()
        await session.stop()
    }

    @Test func theClientRefusesAServerItDoesNotTrust() async throws {
        let session = try await MockSession.start()
        let untrusting = try APNsClient(configuration: .init(endpoint: APNsEndpoint(host: "127.0.0.1", port: session.server.port, tls: true)), eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        await #expect(throws: (any Error).self) {
            _ = try await untrusting.send(MockSession.updateRequest(token: MockSession.token(4), timestamp: 1))
        }
        await untrusting.shutdown()
        await session.stop()
    }
}

/// Counts calls, from any thread.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value - 1
    }
}
