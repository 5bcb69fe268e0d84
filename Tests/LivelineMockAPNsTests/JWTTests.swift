import Foundation
import Liveline
import LivelineMockAPNs
import Testing

@Suite("Provider tokens (JWT)")
struct JWTTests {
    let key = TestKey()

    func start(_ clock: ManualClock) async throws -> MockAPNsServer {
        let providerKey = key.providerKey
        return try await Harness.start(clock: clock) { $0.authentication = .keys([providerKey]) }
    }

    func push(_ client: RawH2Client, jwt: String?, timestamp: Int64) async throws -> RawResponse {
        try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(jwt: jwt),
            body: Harness.payload(timestamp: timestamp))
    }

    @Test("a token signed with an accepted key is valid")
    func validTokenPasses() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await start(clock)
        let client = try await Harness.connect(server)
        let response = try await push(client, jwt: key.token(at: clock.now()), timestamp: Harness.seconds(clock.now()))
        #expect(response.status == 200)
        await client.close()
        await server.shutdown()
    }

    @Test("a request without authorization is MissingProviderToken")
    func missingTokenIsRejected() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await start(clock)
        let client = try await Harness.connect(server)
        let response = try await push(client, jwt: nil, timestamp: 1)
        #expect(response.status == 403)
        #expect(response.reason == "MissingProviderToken")
        await client.close()
        await server.shutdown()
    }

    @Test("an unknown kid, a mismatched iss, a foreign signature or garbage is InvalidProviderToken")
    func invalidTokensAreRejected() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await start(clock)
        let iat = Harness.seconds(clock.now())
        let other = TestKey()
        let tokens = [
            key.token(issuedAt: iat, kid: "ZZZ999ZZZZ"),
            key.token(issuedAt: iat, iss: "OTHERTEAM1"),
            other.token(issuedAt: iat),
            "not.a.jwt",
            String(key.token(issuedAt: iat).dropLast(4)) + "AAAA",
        ]
        for token in tokens {
            let client = try await Harness.connect(server)
            let response = try await push(client, jwt: token, timestamp: iat)
            #expect(response.status == 403, "\(token)")
            #expect(response.reason == "InvalidProviderToken", "\(token)")
            await client.close()
        }
        await server.shutdown()
    }

    @Test("a token issued more than an hour ago is ExpiredProviderToken")
    func oldTokenIsExpired() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await start(clock)
        let client = try await Harness.connect(server)
        let old = key.token(issuedAt: Harness.seconds(clock.now()) - 3601)
        let response = try await push(client, jwt: old, timestamp: 1)
        #expect(response.status == 403)
        #expect(response.reason == "ExpiredProviderToken")
        await client.close()
        await server.shutdown()
    }

    @Test("a token that ages past an hour on an open connection becomes ExpiredProviderToken")
    func tokenExpiresOnTheConnection() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await start(clock)
        let client = try await Harness.connect(server)
        let jwt = key.token(at: clock.now())
        #expect(try await push(client, jwt: jwt, timestamp: 1).status == 200)
        clock.advance(by: .milliseconds(3_601_000))
        let response = try await push(client, jwt: jwt, timestamp: 2)
        #expect(response.reason == "ExpiredProviderToken")
        await client.close()
        await server.shutdown()
    }

    @Test("a new token on a connection within 20 minutes is TooManyProviderTokenUpdates, after 20 minutes fine")
    func refreshingTooOftenIsRejected() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await start(clock)
        let client = try await Harness.connect(server)
        #expect(try await push(client, jwt: key.token(at: clock.now()), timestamp: 1).status == 200)
        clock.advance(by: .milliseconds(10 * 60_000))
        let early = try await push(client, jwt: key.token(at: clock.now()), timestamp: 2)
        #expect(early.status == 429)
        #expect(early.reason == "TooManyProviderTokenUpdates")
        clock.advance(by: .milliseconds(10 * 60_000))
        let onTime = try await push(client, jwt: key.token(at: clock.now()), timestamp: 3)
        #expect(onTime.status == 200)
        await client.close()
        await server.shutdown()
    }

    @Test("several keys are accepted, each with its own team")
    func severalKeysAreAccepted() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let second = TestKey(keyID: "KEY2222222", teamID: "TEAM222222")
        let keys = [key.providerKey, second.providerKey]
        let server = try await Harness.start(clock: clock) { $0.authentication = .keys(keys) }
        for signer in [key, second] {
            let client = try await Harness.connect(server)
            #expect(try await push(client, jwt: signer.token(at: clock.now()), timestamp: 1).status == 200)
            await client.close()
        }
        await server.shutdown()
    }

    @Test("a .p8 PEM loads as a provider key")
    func p8LoadsAsProviderKey() throws {
        let loaded = try ProviderKey(keyID: key.keyID, teamID: key.teamID, pem: key.p8)
        #expect(loaded.publicKeyX963 == Array(key.privateKey.publicKey.x963Representation))
        #expect(throws: ProviderKeyError.self) { try ProviderKey(keyID: "X", teamID: "Y", pem: "nope") }
    }
}
