import Crypto
import Foundation
import Liveline
@testable import LivelineAPNs
import LivelineTestSupport
import Testing

@Suite struct AuthTests {
    static let rawKey = P256.Signing.PrivateKey().rawRepresentation
    static var privateKey: P256.Signing.PrivateKey {
        (try? P256.Signing.PrivateKey(rawRepresentation: rawKey)) ?? P256.Signing.PrivateKey()
    }
    static var pem: String { privateKey.pemRepresentation }

    static func decode(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }

    @Test func providerTokensAreES256JWTsWithRawSignatures() throws {
        let key = try SigningKey(pem: Self.pem, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let token = ProviderToken(key: key, issuedAt: 1_795_464_000)
        let parts = token.value.split(separator: ".")
        #expect(parts.count == 3)
        #expect(
            Self.decode(parts[0]).map { String(decoding: $0, as: UTF8.self) } == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(
            Self.decode(parts[1]).map { String(decoding: $0, as: UTF8.self) }
                == #"{"iss":"DEF123GHIJ","iat":1795464000}"#)
        let signature = try #require(Self.decode(parts[2]))
        #expect(signature.count == 64)
        let raw = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(Self.privateKey.publicKey.isValidSignature(raw, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(!token.value.contains("="))
    }

    @Test func secretsNeverAppearInDescriptions() throws {
        let key = try SigningKey(pem: Self.pem, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        #expect(!key.description.contains("PRIVATE"))
        #expect(key.description == "SigningKey(key id ABC123DEFG, team DEF123GHIJ)")
        let token = ProviderToken(key: key, issuedAt: 1)
        #expect(!token.description.contains(token.value))
    }

    @Test func credentialsComeFromFlagsOrTheEnvironmentAndPartialOnesAreNamed() throws {
        #expect(try Credentials.resolve(keyFile: nil, keyID: nil, teamID: nil, environment: [:]) == nil)
        let fromEnvironment = try Credentials.resolve(
            keyFile: nil, keyID: nil, teamID: nil,
            environment: [
                "LIVELINE_APNS_KEY": Self.pem, "LIVELINE_APNS_KEY_ID": "ABC123DEFG",
                "LIVELINE_APNS_TEAM_ID": "DEF123GHIJ",
            ])
        #expect(fromEnvironment?.keyID == "ABC123DEFG")
        #expect(throws: CredentialsError.missing("the Team ID (--team-id or LIVELINE_APNS_TEAM_ID)")) {
            try Credentials.resolve(keyFile: nil, keyID: "K", teamID: nil, environment: ["LIVELINE_APNS_KEY": Self.pem])
        }
        #expect(
            throws: CredentialsError.missing("the key (--key FILE.p8, LIVELINE_APNS_KEY_FILE or LIVELINE_APNS_KEY)")
        ) {
            try Credentials.resolve(keyFile: nil, keyID: "K", teamID: "T", environment: [:])
        }
        #expect(throws: CredentialsError.unreadable("/nonexistent.p8")) {
            try Credentials.resolve(keyFile: "/nonexistent.p8", keyID: "K", teamID: "T", environment: [:])
        }
        #expect(throws: CredentialsError.self) {
            try SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----", keyID: "K", teamID: "T")
        }
    }

    static func cache(_ clock: TestSeconds, log: CapturedLog = CapturedLog()) throws -> ProviderTokenCache {
        let key = try SigningKey(pem: Self.pem, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        return ProviderTokenCache(key: key, logger: log.logger(), now: { clock.value })
    }

    @Test func tokensAreReusedThenRenewedAtFiftyMinutes() throws {
        let clock = TestSeconds(1000)
        let log = CapturedLog()
        let cache = try Self.cache(clock, log: log)
        let first = cache.current()
        clock.value += 49 * 60
        #expect(cache.current() == first)
        clock.value += 60
        let second = cache.current()
        #expect(second != first)
        #expect(second.issuedAt == 1000 + 50 * 60)
        #expect(log.entries("provider token signed").count == 1)
        #expect(log.entries("provider token renewed").first?.metadata["previous-age-seconds"] == "3000")
        // Never the token itself.
        #expect(!log.all.contains { "\($0)".contains(second.value) || "\($0)".contains(first.value) })
    }

    @Test func anExpiredTokenIsRenewedNoSoonerThanAPNsAcceptsANewOne() throws {
        let clock = TestSeconds(1_000_000)
        let log = CapturedLog()
        let cache = try Self.cache(clock, log: log)
        let first = cache.current()
        // Called expired at 5 minutes old: a new token now would be TooManyProviderTokenUpdates.
        clock.value += 5 * 60
        #expect(cache.renew(replacing: first) == .refused(age: 5 * 60))
        #expect(cache.current() == first)
        #expect(log.entries("expired").first?.level == .warning)
        clock.value += 15 * 60 - 1
        #expect(cache.renew(replacing: first) == .refused(age: 20 * 60 - 1))
        clock.value += 1
        guard case .renewed(let second) = cache.renew(replacing: first) else {
            Issue.record("not renewed at 20 minutes")
            return
        }
        #expect(second.issuedAt == first.issuedAt + 20 * 60)
        #expect(cache.current() == second)
        #expect(log.entries("renewed it").first?.level == .notice)
        // A request that still carried the first token finds the renewal done, once.
        #expect(cache.renew(replacing: first) == .alreadyRenewed(second))
        #expect(cache.current() == second)
        // The new token called expired at once: kept, too young.
        #expect(cache.renew(replacing: second) == .refused(age: 0))
    }

    @Test func aClockThatWentBackMayRenewAnExpiredToken() throws {
        let clock = TestSeconds(1_000_000)
        let cache = try Self.cache(clock)
        let first = cache.current()
        clock.value -= 3600
        guard case .renewed(let second) = cache.renew(replacing: first) else {
            Issue.record("not renewed after the clock went back")
            return
        }
        #expect(second.issuedAt == 1_000_000 - 3600)
    }

    @Test func thePolicyIsAPNssRules() {
        let policy = ProviderTokenPolicy()
        #expect(!policy.shouldRenew(issuedAt: 0, now: 50 * 60 - 1))
        #expect(policy.shouldRenew(issuedAt: 0, now: 50 * 60))
        #expect(!policy.mayRenewAfterExpiry(issuedAt: 0, now: 20 * 60 - 1))
        #expect(policy.mayRenewAfterExpiry(issuedAt: 0, now: 20 * 60))
        #expect(policy.mayRenewAfterExpiry(issuedAt: 100, now: 99))
    }
}

extension AuthTests {
    /// A key file of `pem`, readable by its owner only; removed by the caller.
    static func keyFile(_ pem: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("auth-\(UUID().uuidString).p8").path
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theKeyFileCanComeFromTheEnvironmentButNotTwice() throws {
        let path = try Self.keyFile(Self.pem)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ids = ["LIVELINE_APNS_KEY_ID": "ABC123DEFG", "LIVELINE_APNS_TEAM_ID": "DEF123GHIJ"]
        let key = try Credentials.resolve(
            keyFile: nil, keyID: nil, teamID: nil, environment: ids.merging(["LIVELINE_APNS_KEY_FILE": path]) { $1 })
        #expect(key?.keyID == "ABC123DEFG")
        // The flag wins over both variables.
        let flagged = try Credentials.resolve(
            keyFile: path, keyID: nil, teamID: nil,
            environment: ids.merging(["LIVELINE_APNS_KEY_FILE": "/nonexistent.p8", "LIVELINE_APNS_KEY": "x"]) { $1 })
        #expect(flagged?.teamID == "DEF123GHIJ")
        #expect(throws: CredentialsError.self) {
            try Credentials.resolve(
                keyFile: nil, keyID: nil, teamID: nil,
                environment: ids.merging(["LIVELINE_APNS_KEY_FILE": path, "LIVELINE_APNS_KEY": Self.pem]) { $1 })
        }
    }

    @Test func keyAndTeamIDsOfTheWrongShapeAreNamedWhereTheyCameFrom() throws {
        #expect(
            throws: CredentialsError.invalid(
                setting: "--key-id", value: "X", problem: APNsIdentifiers.keyIDProblem("X") ?? "")
        ) {
            try Credentials.resolve(
                keyFile: nil, keyID: "X", teamID: "DEF123GHIJ", environment: ["LIVELINE_APNS_KEY": Self.pem])
        }
        do {
            _ = try Credentials.resolve(
                keyFile: nil, keyID: "ABC123DEFG", teamID: nil,
                environment: ["LIVELINE_APNS_KEY": Self.pem, "LIVELINE_APNS_TEAM_ID": "DEF-23GHIJ"])
            Issue.record("a Team ID with a hyphen was accepted")
        } catch {
            #expect(
                error.description
                    == "LIVELINE_APNS_TEAM_ID=DEF-23GHIJ: a Team ID is letters and digits, and this one has '-'; it is shown under Membership details in your developer account"
            )
        }
    }

    @Test func aKeyOnAnotherCurveIsNamedWithItsFile() throws {
        let path = try Self.keyFile(P384.Signing.PrivateKey().pemRepresentation)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try SigningKey(file: path, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
            Issue.record("a P-384 key was accepted")
        } catch {
            #expect(error.description.hasPrefix("the APNs key \(path) is not usable: the key is on the curve P-384"))
            #expect(error.description.contains("P-256"))
        }
    }

    @Test func identifierShapes() {
        let token = String(repeating: "a1", count: 32)
        #expect(APNsIdentifiers.deviceTokenProblem(token) == nil)
        #expect(APNsIdentifiers.deviceTokenProblem(token + "b2b2") == nil)
        #expect(APNsIdentifiers.deviceTokenProblem("abc")?.contains("has 3") == true)
        #expect(APNsIdentifiers.deviceTokenProblem(token + "b")?.contains("even number") == true)
        #expect(APNsIdentifiers.deviceTokenProblem(String(token.dropLast()) + "g")?.contains("'g'") == true)
        #expect(APNsIdentifiers.keyIDProblem("ABC123DEFG") == nil)
        #expect(APNsIdentifiers.keyIDProblem("ABC123DEF")?.contains("has 9") == true)
        #expect(APNsIdentifiers.teamIDProblem("DEF123GHIJ") == nil)
        #expect(APNsIdentifiers.topicProblem("com.example.matchday") == nil)
        #expect(
            APNsIdentifiers.topicProblem("com.example.matchday.push-type.liveactivity")
                == "give the app's bundle id, com.example.matchday: Liveline adds .push-type.liveactivity to every push"
        )
        for bad in ["", "com example", ".com.example", "com..example", "com.example."] {
            #expect(APNsIdentifiers.topicProblem(bad) != nil, "\(bad)")
        }
    }
}

/// A settable clock in UNIX seconds.
final class TestSeconds: @unchecked Sendable {
    var value: Int64
    init(_ value: Int64) { self.value = value }
}
