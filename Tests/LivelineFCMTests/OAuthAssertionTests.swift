import Foundation
import LivelineCore
import LivelineFCM
import Testing
import _CryptoExtras

/// The service account's assertion: read from Google's key file, signed RS256, and checked by
/// Python's `cryptography`, which shares no code with swift-crypto's RSA.
@Suite struct OAuthAssertionTests {
    @Test(.enabled(if: PythonPeer.available, "needs python3 with cryptography (pip install cryptography)"))
    func pythonVerifiesTheSignatureAndReadsTheClaims() async throws {
        let file = try await PythonPeer.makeAccount()
        defer { try? FileManager.default.removeItem(at: file) }
        let account = try ServiceAccount(contentsOf: file.path)
        #expect(account.projectID == "liveline-test")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        let assertion = try OAuthAssertion(account: account, issuedAt: 1_800_000_000)
        #expect(assertion.expiresAt == 1_800_003_600)

        let checked = try await PythonPeer.run(["verify", file.path, assertion.value])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        guard
            case .object(let root) = try JSONParser.parse(
                checked.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
            case .object(let header)? = root["header"], case .object(let claims)? = root["claims"]
        else {
            Issue.record("the peer printed \(checked.stdout)")
            return
        }
        #expect(header["alg"] == .string("RS256"))
        #expect(header["typ"] == .string("JWT"))
        #expect(header["kid"] == .string("4f1c0ffee0ddba11"))
        #expect(claims["iss"] == .string("fcm-sender@liveline-test.iam.gserviceaccount.com"))
        #expect(claims["scope"] == .string("https://www.googleapis.com/auth/firebase.messaging"))
        #expect(claims["aud"] == .string("https://oauth2.googleapis.com/token"))
        #expect(claims["iat"] == .int(1_800_000_000))
        #expect(claims["exp"] == .int(1_800_003_600))

        // The peer can say no: one character of the claims changed breaks the signature.
        var parts = assertion.value.split(separator: ".").map(String.init)
        parts[1] = String(parts[1].dropLast()) + (parts[1].last == "A" ? "B" : "A")
        let tampered = try await PythonPeer.run(["verify", file.path, parts.joined(separator: ".")])
        #expect(tampered.status == 1)
        #expect(tampered.stdout.contains("invalid signature"))
    }

    @Test func theSignatureIsPKCS1NotPSS() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let account = try ServiceAccount(json: Self.account(key: key), source: "test")
        let assertion = try OAuthAssertion(account: account, issuedAt: 1_800_000_000)
        let parts = assertion.value.split(separator: ".")
        #expect(parts.count == 3)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Self.unbase64URL(parts[2])))
        let input = Data((parts[0] + "." + parts[1]).utf8)
        #expect(key.publicKey.isValidSignature(signature, for: input, padding: .insecurePKCS1v1_5))
        #expect(!key.publicKey.isValidSignature(signature, for: input, padding: .PSS))
        #expect(!assertion.description.contains(assertion.value))
    }

    @Test func aKeyFileLivelineCannotUseSaysWhatToFix() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        func problem(_ json: [UInt8]) -> String {
            do {
                _ = try ServiceAccount(json: json, source: "key.json")
                return "loaded"
            } catch {
                return error.description
            }
        }
        #expect(problem(Array("not json".utf8)).hasPrefix("service account key.json: it is not JSON"))
        #expect(problem(Self.account(key: key, type: "authorized_user")).contains("its type is 'authorized_user'"))
        #expect(problem(Self.account(key: key, email: nil)) == "service account key.json: it has no 'client_email'")
        #expect(
            problem(Self.account(key: key, pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
                .contains("'private_key' is not an RSA private key"))
        #expect(
            problem(Self.account(key: key, tokenURI: "oauth2.googleapis.com")).contains(
                "'token_uri' is not an http(s) URL"))
        #expect(problem(Self.account(key: key)) == "loaded")
    }

    @Test func theTokenEndpointsAnswersAreRead() throws {
        let ok = try AccessToken(
            answer: Array(#"{"access_token":"ya29.abc","expires_in":3599,"token_type":"Bearer"}"#.utf8), status: 200,
            receivedAt: 1_800_000_000)
        #expect(ok.value == "ya29.abc")
        #expect(ok.expiresAt == 1_800_003_599)
        #expect(!ok.needsRenewal(at: 1_800_003_298))
        #expect(ok.needsRenewal(at: 1_800_003_299))
        #expect(!ok.description.contains("ya29"))

        #expect(
            throws: FCMAuthError.refused(status: 400, error: "invalid_grant", description: "Invalid JWT Signature.")
        ) {
            try AccessToken(
                answer: Array(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#.utf8),
                status: 400, receivedAt: 0)
        }
        do {
            _ = try AccessToken(answer: Array("<html>Bad gateway</html>".utf8), status: 502, receivedAt: 0)
            Issue.record("a 502 page read as a token")
        } catch {
            #expect(error.isTransient)
            #expect(error.description.contains("502"))
        }
    }

    @Test func theTokenRequestIsAFormWithTheAssertion() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let account = try ServiceAccount(json: Self.account(key: key), source: "test")
        let assertion = try OAuthAssertion(account: account, issuedAt: 1_800_000_000)
        let request = AccessTokenRequest(account: account, assertion: assertion)
        #expect(request.url == "https://oauth2.googleapis.com/token")
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion.value)
    }

    /// A service-account file's JSON, with any field changed.
    static func account(
        key: _RSA.Signing.PrivateKey, type: String = "service_account",
        email: String? = "fcm-sender@liveline-test.iam.gserviceaccount.com", pem: String? = nil,
        tokenURI: String = "https://oauth2.googleapis.com/token"
    ) -> [UInt8] {
        var object = StateObject()
        object["type"] = .string(type)
        object["project_id"] = .string("liveline-test")
        object["private_key_id"] = .string("4f1c0ffee0ddba11")
        object["private_key"] = .string(pem ?? key.pkcs8PEMRepresentation)
        if let email { object["client_email"] = .string(email) }
        object["token_uri"] = .string(tokenURI)
        var writer = JSONWriter(capacity: 4096)
        writer.value(.object(object))
        return writer.bytes
    }

    static func unbase64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
