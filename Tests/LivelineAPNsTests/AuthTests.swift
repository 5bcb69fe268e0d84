import Crypto
import Foundation
import Liveline
@testable import LivelineAPNs
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
        #expect(throws: CredentialsError.missing("the key (--key FILE.p8 or LIVELINE_APNS_KEY)")) {
            try Credentials.resolve(keyFile: nil, keyID: "K", teamID: "T", environment: [:])
        }
        #expect(throws: CredentialsError.unreadable("/nonexistent.p8")) {
            try Credentials.resolve(keyFile: "/nonexistent.p8", keyID: "K", teamID: "T", environment: [:])
        }
        #expect(throws: CredentialsError.self) {
            try SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----", keyID: "K", teamID: "T")
        }
    }

    @Test func tokensAreReusedThenRenewedAtFiftyMinutes() throws {
        let key = try SigningKey(pem: Self.pem, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let clock = TestSeconds(1000)
        let cache = ProviderTokenCache(key: key, now: { clock.value })
        let first = cache.current()
        clock.value += 49 * 60
        #expect(cache.current() == first)
        clock.value += 60
        let second = cache.current()
        #expect(second != first)
        #expect(second.issuedAt == 1000 + 50 * 60)
        clock.value += 5
        cache.renew(replacing: second)
        #expect(cache.current() != second)
        // A renewal already done by another request is not repeated.
        let third = cache.current()
        cache.renew(replacing: second)
        #expect(cache.current() == third)
    }
}

/// A settable clock in UNIX seconds.
final class TestSeconds: @unchecked Sendable {
    var value: Int64
    init(_ value: Int64) { self.value = value }
}
