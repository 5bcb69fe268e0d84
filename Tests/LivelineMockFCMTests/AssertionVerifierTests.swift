import Foundation
import LivelineCore
import LivelineFCM
import LivelineMockFCM
import LivelineTestSupport
import Testing
import _CryptoExtras

/// The mock's token endpoint rules, fed the client's assertions and ones Python's `cryptography` signed.
@Suite struct AssertionVerifierTests {
    static let email = "fcm-sender@liveline-test.iam.gserviceaccount.com"
    static let audience = "https://oauth2.googleapis.com/token"

    static func account(_ key: _RSA.Signing.PrivateKey, tokenURI: String = audience) throws -> ServiceAccount {
        var object = StateObject()
        object["type"] = .string("service_account")
        object["project_id"] = .string("liveline-test")
        object["private_key_id"] = .string("4f1c0ffee0ddba11")
        object["private_key"] = .string(key.pkcs8PEMRepresentation)
        object["client_email"] = .string(email)
        object["token_uri"] = .string(tokenURI)
        var writer = JSONWriter(capacity: 4096)
        writer.value(.object(object))
        return try ServiceAccount(json: writer.bytes, source: "test")
    }

    static func verifier(_ key: _RSA.Signing.PublicKey) -> AssertionVerifier {
        AssertionVerifier(
            accounts: [.init(email: email, project: "liveline-test", keyID: "4f1c0ffee0ddba11", publicKey: key)],
            audience: audience)
    }

    static func form(_ assertion: String, grant: String = "urn:ietf:params:oauth:grant-type:jwt-bearer") -> [UInt8] {
        Array(
            ("grant_type=" + grant.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&assertion="
                + assertion).utf8)
    }

    @Test func theClientsAssertionIsGranted() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let account = try Self.account(key)
        let assertion = try OAuthAssertion(account: account, issuedAt: 1_800_000_000)
        let request = AccessTokenRequest(account: account, assertion: assertion)
        let grant = try Self.verifier(key.publicKey).verify(form: request.body, now: 1_800_000_010).get()
        #expect(grant.email == Self.email)
        #expect(grant.project == "liveline-test")
        #expect(grant.scopes == [OAuthAssertion.messagingScope])
    }

    @Test func refusalsAreGooglesOAuthErrors() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let other = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let assertion = try OAuthAssertion(account: try Self.account(key), issuedAt: 1_800_000_000)
        let verifier = Self.verifier(key.publicKey)
        func refusal(
            _ body: [UInt8], now: Int64 = 1_800_000_010, using: AssertionVerifier? = nil
        ) -> AssertionVerifier.Refusal? {
            if case .failure(let refusal) = (using ?? verifier).verify(form: body, now: now) { return refusal }
            return nil
        }
        #expect(refusal(Self.form(assertion.value, grant: "client_credentials"))?.error == "unsupported_grant_type")
        #expect(
            refusal(Self.form(assertion.value), using: Self.verifier(other.publicKey))?.reason
                == "Invalid JWT Signature.")
        let expired = try #require(refusal(Self.form(assertion.value), now: 1_800_004_000))
        #expect(expired.error == "invalid_grant")
        #expect(expired.reason.contains("short-lived token (60 minutes)"))
        // An assertion for another token endpoint; Google's own is taken by any (google-auth always names it).
        let elsewhere = try OAuthAssertion(
            account: try Self.account(key, tokenURI: "http://127.0.0.1:5000/token"), issuedAt: 1_800_000_000)
        let local = AssertionVerifier(
            accounts: [.init(email: Self.email, project: "liveline-test", keyID: nil, publicKey: key.publicKey)],
            audience: "http://127.0.0.1:4000/token")
        #expect(refusal(Self.form(elsewhere.value), using: local)?.reason.contains("audience") == true)
        #expect(refusal(Self.form(assertion.value), using: local) == nil)
        let stranger = AssertionVerifier(accounts: [], audience: Self.audience)
        #expect(refusal(Self.form(assertion.value), using: stranger)?.reason == "Invalid grant: account not found")
        let body = try #require(refusal(Self.form("a.b.c"))).body
        #expect(String(decoding: body, as: UTF8.self).hasPrefix(#"{"error":"invalid_grant","error_description":"#))
    }

    @Test(.enabled(if: PythonPeerForMock.available, "needs python3 with cryptography (pip install cryptography)"))
    func anAssertionPythonSignedIsGranted() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-sa-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let made = try await Subprocess.run(["python3", PythonPeerForMock.script, "make", file.path])
        #expect(made.status == 0, "\(made.stderr)")
        // The client reads Python's key file; its public half is what the mock knows.
        let account = try ServiceAccount(contentsOf: file.path)
        let signed = try await Subprocess.run([
            "python3", PythonPeerForMock.script, "assertion", file.path, Self.audience, "1800000000",
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        let assertion = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let clients = try OAuthAssertion(account: account, issuedAt: 1_800_000_000)
        let parts = clients.value.split(separator: ".")
        // The public key comes from the client's own reading of the file, checked on its signature first.
        let publicKey = try #require(PythonPeerForMock.publicKey(from: file.path))
        let verifier = AssertionVerifier(
            accounts: [
                .init(
                    email: account.clientEmail, project: account.projectID, keyID: account.privateKeyID,
                    publicKey: publicKey)
            ],
            audience: Self.audience)
        #expect(parts.count == 3)
        #expect(throws: Never.self) { try verifier.verify(form: Self.form(clients.value), now: 1_800_000_000).get() }
        let grant = try verifier.verify(form: Self.form(assertion), now: 1_800_000_000).get()
        #expect(grant.project == "liveline-test")
    }
}

/// The peer script of the client's tests, shared.
enum PythonPeerForMock {
    static let available = ToolRequirement(
        untested: "the mock's assertion check against Python's cryptography", provider: "pip:cryptography"
    ).check(ToolRequirement.succeeds(["python3", "-c", "import cryptography"]))

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("LivelineFCMTests/Fixtures/service-account.py").path
    }

    /// The public key of a service-account file's private key.
    static func publicKey(from path: String) -> _RSA.Signing.PublicKey? {
        guard let data = FileManager.default.contents(atPath: path),
            case .object(let fields)? = try? JSONParser.parse(Array(data)),
            case .string(let pem)? = fields["private_key"],
            let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem)
        else { return nil }
        return key.publicKey
    }
}
