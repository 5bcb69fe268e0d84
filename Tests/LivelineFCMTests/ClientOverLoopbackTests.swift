import Foundation
import LivelineAPNs
import LivelineCore
import LivelineFCM
import LivelineMockFCM
import LivelineTestSupport
import NIOConcurrencyHelpers
import Testing

/// The FCM client against the mock FCM on a real socket: the token exchange, many messages in
/// flight on one HTTP/2 connection, and what it does with each of FCM's error codes.
@Suite struct ClientOverLoopbackTests {
    static let project = "liveline-test"

    /// A started mock, a service account it accepts, and a client for both; `pauses` records
    /// each back-off the client asked for (and skips it).
    struct Setup {
        let mock: MockFCMServer
        let client: FCMClient
        let pauses: NIOLockedValueBox<[Duration]>

        static func start(attempts: Int = 4, historyLimit: Int = 10_000) async throws -> Setup {
            let mock = try await MockFCMServer.start(MockFCMConfiguration(historyLimit: historyLimit))
            let account = try ServiceAccount(json: try mock.makeServiceAccount(project: project), source: "mock")
            let pauses = NIOLockedValueBox<[Duration]>([])
            let client = try FCMClient(
                configuration: .init(account: account, url: mock.baseURL, policy: policy(attempts: attempts)),
                pause: { pause in pauses.withLockedValue { $0.append(pause) } })
            return Setup(mock: mock, client: client, pauses: pauses)
        }

        func stop() async {
            await client.shutdown()
            await mock.stop()
        }
    }

    /// The client's own back-off (from a second, at most a minute) with `attempts` attempts.
    static func policy(attempts: Int) -> AnswerPolicy {
        AnswerPolicy(retry: RetryPolicy(base: .seconds(1), cap: .seconds(60), maxAttempts: attempts))
    }

    static func request(_ token: String, timestamp: Int = 1000, activity: String = "match") throws -> FCMSendRequest {
        let data = FCMData([
            ("liveline", "1"), ("activity", activity), ("event", "update"), ("timestamp", String(timestamp)),
            ("channel", "live-updates"), ("style", "progress"), ("title", "Northbridge 1–0"), ("chip", "1–0"),
        ])
        return try FCMSendRequest(
            project: project, target: .token(token), data: data, priority: .high, ttlSeconds: 300,
            collapseKey: activity)
    }

    @Test func aMessageReachesThePhoneWithATokenFromTheServiceAccount() async throws {
        let setup = try await Setup.start()
        let outcome = await setup.client.send(try Self.request("reg-1"))
        #expect(outcome.isDelivered, "\(outcome)")
        #expect(outcome.attempts == 1)
        guard let name = outcome.messageName else { return await setup.stop() }
        #expect(name.hasPrefix("projects/\(Self.project)/messages/"))
        #expect(setup.mock.stats().tokensGranted == 1)
        let shown = setup.mock.phone(.token("reg-1"))?.notifications["match"]
        #expect(shown?.content.title == "Northbridge 1–0")
        #expect(shown?.promoted == true)
        #expect(setup.mock.messages().first?.message.collapseKey == "match")
        await setup.stop()
    }

    @Test func overTLSTheClientTrustsTheMocksCertificateAndNothingElse() async throws {
        let certificate = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-fcm-tls-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: certificate) }
        var configuration = MockFCMConfiguration()
        configuration.transport = .tls(.selfSigned(writeCertificateTo: certificate.path))
        let mock = try await MockFCMServer.start(configuration)
        #expect(mock.usesTLS && mock.baseURL.hasPrefix("https://127.0.0.1:"))
        let account = try ServiceAccount(json: try mock.makeServiceAccount(project: Self.project), source: "mock")
        #expect(account.tokenURI == mock.baseURL + "/token")
        let client = try FCMClient(
            configuration: .init(account: account, url: mock.baseURL, trustedCertificates: certificate.path))
        let outcome = await client.send(try Self.request("reg-1"))
        #expect(outcome.isDelivered, "\(outcome)")
        #expect(mock.stats().tokensGranted == 1 && mock.stats().accepted == 1)
        await client.shutdown()

        // A client that does not trust the certificate stops at once: TLS is a setup problem, and
        // the outcome says how to fix it.
        let stranger = try FCMClient(configuration: .init(account: account, url: mock.baseURL), pause: { _ in })
        let refused = await stranger.send(try Self.request("reg-2"))
        guard case .stop(let problem) = refused.action else {
            Issue.record("an untrusted certificate did not stop the client: \(refused)")
            await stranger.shutdown()
            return await mock.stop()
        }
        #expect(problem.reason == "TLS")
        #expect(refused.description.contains("certificate not trusted"), "\(refused)")
        #expect(refused.attempts == 1)
        await stranger.shutdown()
        await mock.stop()
    }

    @Test func manyMessagesShareOneConnectionAndOneAccessToken() async throws {
        let setup = try await Setup.start()
        let outcomes = try await withThrowingTaskGroup(of: FCMSendOutcome.self) { group in
            for index in 0..<500 {
                let request = try Self.request("reg-\(index % 50)", timestamp: 1000 + index, activity: "a\(index)")
                group.addTask { await setup.client.send(request) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 500)
        #expect(outcomes.filter(\.isDelivered).count == 500)
        #expect(setup.client.connectionsMade == 1)
        #expect(await setup.client.tokenExchanges == 1)
        #expect(setup.mock.stats().accepted == 500)
        #expect(setup.mock.stats().tokensGranted == 1)
        await setup.stop()
    }

    /// The inspection keeps the newest `historyLimit` messages, in order, however many came.
    @Test func theMocksHistoryKeepsTheNewestMessages() async throws {
        let setup = try await Setup.start(historyLimit: 7)
        for index in 0..<40 {
            #expect(await setup.client.send(try Self.request("reg-1", timestamp: 1000 + index)).isDelivered)
        }
        let kept = setup.mock.messages().compactMap { $0.message.data[LiveUpdateKeys.timestamp] }
        #expect(kept == (33..<40).map { String(1000 + $0) })
        #expect(setup.mock.stats().accepted == 40)
        await setup.stop()
    }

    /// A batch goes at once on one connection with one access token; each outcome is its
    /// message's first attempt, in order: `UNAVAILABLE` says when to try again rather than
    /// waiting, and a revoked access token is renewed once for the messages it refused.
    @Test func aBatchIsSentOnceEachInOrder() async throws {
        let setup = try await Setup.start()
        let requests = try (0..<200).map { try Self.request("reg-\($0)", timestamp: 1000 + $0, activity: "b\($0)") }
        let outcomes = await setup.client.sendOnce(requests)
        #expect(outcomes.count == 200 && outcomes.allSatisfy { $0.isDelivered })
        #expect(Set(outcomes.compactMap(\.messageName)).count == 200)
        #expect(setup.client.connectionsMade == 1)
        #expect(await setup.client.tokenExchanges == 1)
        #expect(setup.mock.messages().map(\.message.recipient) == (0..<200).map { FCMRecipient.token("reg-\($0)") })

        setup.mock.inject(.unavailable(retryAfter: 7), for: .token("reg-1"))
        let mixed = await setup.client.sendOnce(try (0..<3).map { try Self.request("reg-\($0)", timestamp: 2000) })
        #expect(mixed.map(\.isDelivered) == [true, false, true])
        guard case .retry(let after) = mixed[1].action else {
            Issue.record("UNAVAILABLE was not to be tried again: \(mixed[1])")
            return await setup.stop()
        }
        #expect(after == 7000 && mixed[1].attempts == 1)
        #expect(setup.pauses.withLockedValue { $0 }.isEmpty, "a batch waits for nothing")

        setup.mock.revokeAccessTokens()
        let renewed = await setup.client.sendOnce(try (0..<5).map { try Self.request("reg-\($0)", timestamp: 3000) })
        #expect(renewed.allSatisfy { $0.isDelivered }, "\(renewed)")
        #expect(renewed.allSatisfy { $0.attempts == 2 })
        #expect(await setup.client.tokenExchanges == 2)
        #expect(await setup.client.sendOnce([]).isEmpty)
        await setup.stop()
    }

    @Test func unavailableAndQuotaAreRetriedNoSoonerThanRetryAfter() async throws {
        let setup = try await Setup.start()
        setup.mock.inject(.unavailable(retryAfter: 7))
        setup.mock.inject(.quotaExceeded(retryAfter: 30))
        setup.mock.inject(.internal)
        let outcome = await setup.client.send(try Self.request("reg-1"))
        #expect(outcome.isDelivered, "\(outcome)")
        #expect(outcome.attempts == 4)
        let pauses = setup.pauses.withLockedValue { $0 }
        #expect(pauses.count == 3)
        #expect(pauses.count == 3 && pauses[0] >= .seconds(7) && pauses[1] >= .seconds(30))
        // INTERNAL carries no Retry-After: the exponential back-off with full jitter, at most 4 s
        // before the fourth try.
        #expect(pauses.count == 3 && pauses[0] == .seconds(7) && pauses[1] == .seconds(30))
        #expect(pauses.count == 3 && pauses[2] <= .seconds(4))
        await setup.stop()
    }

    @Test func theClientGivesUpAfterItsAttemptsAndSaysWhy() async throws {
        let setup = try await Setup.start(attempts: 2)
        setup.mock.inject(.unavailable(retryAfter: 1), count: 5)
        let outcome = await setup.client.send(try Self.request("reg-1"))
        #expect(outcome.attempts == 2)
        #expect(outcome.action == .giveUp(reason: "UNAVAILABLE"))
        #expect(outcome.answer == .unavailable(reason: "UNAVAILABLE", retryAfter: .seconds(1)))
        #expect(outcome.error?.errorCode == .unavailable)
        #expect(outcome.description.contains("not delivered after 2 attempts"))
        await setup.stop()
    }

    @Test func anUninstalledAppsTokenIsForgottenNotRetried() async throws {
        let setup = try await Setup.start()
        setup.mock.register(.token("gone-1"), project: Self.project, installed: false)
        let gone = await setup.client.send(try Self.request("gone-1"))
        #expect(gone.action == .forgetToken(TokenProblem(reason: "UNREGISTERED", status: 404)))
        #expect(gone.error?.errorCode == .unregistered)
        #expect(gone.attempts == 1)
        // A token FCM never issued is INVALID_ARGUMENT about the token: forgotten as well.
        let malformed = await setup.client.send(try Self.request("not/a/token"))
        #expect(malformed.action.name == "forget-token", "\(malformed)")
        #expect(setup.pauses.withLockedValue { $0 }.isEmpty)
        await setup.stop()
    }

    @Test func anotherProjectsTokenIsAConfigurationError() async throws {
        let setup = try await Setup.start()
        setup.mock.register(.token("theirs-1"), project: "someone-else", installed: true)
        let outcome = await setup.client.send(try Self.request("theirs-1"))
        guard case .stop(let problem) = outcome.action else {
            Issue.record("expected a configuration error, got \(outcome)")
            return await setup.stop()
        }
        #expect(problem.reason == "SENDER_ID_MISMATCH")
        #expect(outcome.description.contains("another Firebase project"))
        #expect(outcome.attempts == 1)
        await setup.stop()
    }

    @Test func aRefusedAccessTokenIsRenewedOnce() async throws {
        let setup = try await Setup.start()
        #expect(await setup.client.send(try Self.request("reg-1")).isDelivered)
        setup.mock.revokeAccessTokens()
        let outcome = await setup.client.send(try Self.request("reg-1", timestamp: 2000))
        #expect(outcome.isDelivered, "\(outcome)")
        #expect(outcome.attempts == 2)
        #expect(await setup.client.tokenExchanges == 2)
        #expect(setup.mock.stats().refused["UNAUTHENTICATED"] == 1)
        await setup.stop()
    }

    @Test func aServiceAccountTheEndpointRefusesIsAConfigurationError() async throws {
        let setup = try await Setup.start()
        // A key file for the same endpoint whose key the mock never saw.
        let other = try await MockFCMServer.start(MockFCMConfiguration())
        var stranger = try other.makeServiceAccount(project: Self.project)
        await other.stop()
        stranger = Array(
            String(decoding: stranger, as: UTF8.self).replacingOccurrences(
                of: other.tokenURI, with: setup.mock.tokenURI
            ).utf8)
        let client = try FCMClient(
            configuration: .init(
                account: try ServiceAccount(json: stranger, source: "stranger"), url: setup.mock.baseURL))
        let outcome = await client.send(try Self.request("reg-1"))
        guard case .stop(let problem) = outcome.action else {
            Issue.record("expected a configuration error, got \(outcome)")
            await client.shutdown()
            return await setup.stop()
        }
        #expect(problem.fix.contains("invalid_grant"))
        #expect(outcome.attempts == 1)
        #expect(setup.mock.stats().tokensRefused == 1)
        await client.shutdown()
        await setup.stop()
    }

    @Test func aMockThatIsNotThereFailsWithTheCauseAfterItsAttempts() async throws {
        // A port held bound but never listening, for both the token and the messages: a stopped
        // server's port could be taken meanwhile by another test's server.
        let refusing = try RefusingPort()
        let url = "http://127.0.0.1:\(refusing.port)"
        let mock = try await MockFCMServer.start(MockFCMConfiguration())
        let json = String(decoding: try mock.makeServiceAccount(project: Self.project), as: UTF8.self)
        await mock.stop()
        let account = try ServiceAccount(
            json: Array(json.replacingOccurrences(of: mock.baseURL, with: url).utf8), source: "mock")
        #expect(account.tokenURI.hasPrefix(url))
        let client = try FCMClient(
            configuration: .init(account: account, url: url, policy: Self.policy(attempts: 2)),
            pause: { _ in })
        let outcome = await client.send(try Self.request("reg-1"))
        #expect(outcome.action == .giveUp(reason: "transport"))
        #expect(outcome.attempts == 2)
        #expect(outcome.failure?.contains("refused") == true, "\(outcome)")
        await client.shutdown()
        withExtendedLifetime(refusing) {}
    }
}
