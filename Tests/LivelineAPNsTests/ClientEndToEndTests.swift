import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTestSupport
import NIOCore
import NIOPosix
import Testing

/// The client against the mock APNs, over TLS on loopback.
@Suite(.serialized) struct ClientEndToEndTests {
    @Test func aPushWithAValidTokenIsAcceptedOverTLS() async throws {
        let session = try await MockSession.start()
        let token = MockSession.token(1)
        let response = try await session.client.send(
            MockSession.updateRequest(token: token, timestamp: Int64(Date().timeIntervalSince1970)))
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
                group.addTask {
                    try await session.client.send(
                        MockSession.updateRequest(token: MockSession.token(i), timestamp: now)
                    ).status
                }
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
        let response = try await session.client.send(
            MockSession.updateRequest(token: MockSession.token(2), timestamp: realNow))
        #expect(response.status == 200)
        #expect(session.server.stats().reasons["ExpiredProviderToken"] == 1)
        #expect(session.server.stats().statuses["200"] == 1)
        await session.stop()
    }

    @Test func anExpiredTokenTooYoungToRenewIsKeptAndTheAnswerGoesToTheCaller() async throws {
        // The client's clock stands two hours behind: every token it signs is expired for APNs,
        // and a new one at once would be refused as TooManyProviderTokenUpdates.
        let behind = Int64(Date().timeIntervalSince1970) - 7200
        let log = CapturedLog()
        let session = try await MockSession.start(clientNow: { behind }, clientLogger: log.logger())
        let response = try await session.client.send(
            MockSession.updateRequest(token: MockSession.token(2), timestamp: behind))
        #expect(response.status == 403)
        #expect(response.reason == .expiredProviderToken)
        #expect(session.server.stats().reasons["ExpiredProviderToken"] == 1)
        #expect(session.server.stats().reasons["TooManyProviderTokenUpdates"] == nil)
        // Said as a warning that points at the clock.
        let refused = try #require(log.entries("APNs said the provider token expired").first)
        #expect(refused.level == .warning)
        #expect(refused.message.contains("clock"))
        await session.stop()
    }

    @Test func aWrongKeyIDIsAConfigurationErrorThatSaysHowToFixIt() async throws {
        let session = try await MockSession.start()
        let wrong = try session.clientWithUnknownKey()
        let response = try await wrong.send(
            MockSession.updateRequest(token: MockSession.token(3), timestamp: Int64(Date().timeIntervalSince1970)))
        #expect(response.status == 403)
        guard case .stop(let problem) = AnswerPolicy().action(for: PushServiceAnswer(response), attempt: 1, random: 0)
        else {
            Issue.record("not a configuration error: \(response)")
            return
        }
        #expect(problem.fix.contains("--key-id"))
        await wrong.shutdown()
        await session.stop()
    }

    @Test func theClientRefusesAServerItDoesNotTrustAndSaysWhy() async throws {
        let session = try await MockSession.start()
        let other = try await MockSession.start()
        let host = "127.0.0.1:\(session.server.port)"
        // The system's roots, then a CA file of another mock's certificate: neither vouches for it.
        for trusted in [nil, other.server.certificatePath] {
            let untrusting = try APNsClient(
                configuration: .init(
                    endpoint: APNsEndpoint(
                        host: "127.0.0.1", port: session.server.port, tls: true, trustedCertificates: trusted)),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            do {
                let response = try await untrusting.send(
                    MockSession.updateRequest(token: MockSession.token(4), timestamp: 1))
                Issue.record("answered \(response)")
            } catch let error as APNsTransportError {
                #expect(error.description.contains("TLS: certificate not trusted for \(host)"), "\(error)")
                #expect(!error.isRetryable)
                #expect(error.isSetupError)
                #expect(error.host == host)
            }
            await untrusting.shutdown()
        }
        await other.stop()
        await session.stop()
    }

    @Test func aGoAwayReachesTheRequestsItStoppedWithItsCodeAndReason() async throws {
        let session = try await MockSession.start(configure: { $0.faults = FaultPlan(goAwayEvery: 1) })
        let now = Int64(Date().timeIntervalSince1970)
        // All five wait for the one connection; the mock answers the first, then says GOAWAY.
        let results = await withTaskGroup(of: Result<APNsResponse, any Error>.self) { group in
            for i in 0..<5 {
                group.addTask {
                    do {
                        return .success(
                            try await session.client.send(
                                MockSession.updateRequest(token: MockSession.token(i), timestamp: now)))
                    } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let failures = results.compactMap { result -> APNsTransportError? in
            if case .failure(let error as APNsTransportError) = result { return error }
            return nil
        }
        #expect(results.contains { if case .success(let response) = $0 { response.status == 200 } else { false } })
        #expect(!failures.isEmpty)
        let expected = APNsTransportError.goingAway(
            host: "127.0.0.1:\(session.server.port)", code: "NO_ERROR", reason: "Shutdown")
        #expect(failures.allSatisfy { $0 == expected }, "\(failures)")
        #expect(expected.description == "GOAWAY NO_ERROR from 127.0.0.1:\(session.server.port): Shutdown")
        #expect(failures.allSatisfy { $0.isRetryable && !$0.isSetupError })
        await session.stop()
    }

    @Test func transportErrorsNameTheHostAndTheCause() {
        let host = "127.0.0.1:2197"
        #expect(
            APNsTransportError.goingAway(host: host, code: "ENHANCE_YOUR_CALM", reason: "too many requests").description
                == "GOAWAY ENHANCE_YOUR_CALM from 127.0.0.1:2197: too many requests")
        #expect(
            APNsTransportError.protocolError(host: host, detail: "PROTOCOL_ERROR: CONTINUATION without HEADERS")
                .description
                == "protocol error from 127.0.0.1:2197: PROTOCOL_ERROR: CONTINUATION without HEADERS")
        #expect(
            APNsTransportError.connectionClosed(host: host, cause: "GOAWAY NO_ERROR").description
                == "connection to 127.0.0.1:2197 closed: GOAWAY NO_ERROR")
        #expect(APNsTransportError.notHTTP2(host: host, negotiated: "http/1.1").isSetupError)
        #expect(!APNsTransportError.notHTTP2(host: host, negotiated: nil).isRetryable)
        #expect(APNsTransportError.timedOut(host: host).isRetryable)
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
