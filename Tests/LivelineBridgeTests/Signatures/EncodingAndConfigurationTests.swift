import Crypto
import HTTPTypes
import Testing
@testable import LivelineBridge

@Suite struct EncodingTests {
    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(ConstantTime.equals([] as [UInt8], [] as [UInt8]))
    }

    @Test func hexRoundTripsAndReadsEitherCase() {
        let bytes: [UInt8] = [0x00, 0x7F, 0x80, 0xAB, 0xFF]
        #expect(SignatureEncoding.hex.encode(bytes) == "007f80abff")
        #expect(SignatureEncoding.hex.decode("007F80ABff".utf8) == bytes)
        #expect(SignatureEncoding.hex.decode("0".utf8) == nil)
        #expect(SignatureEncoding.hex.decode("0g".utf8) == nil)
    }

    @Test(arguments: 0..<8)
    func base64RoundTripsEveryLength(_ length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
        let text = SignatureEncoding.base64.encode(bytes)
        #expect(text.count % 4 == 0)
        #expect(SignatureEncoding.base64.decode(text.utf8) == bytes)
        // Unpadded and URL-safe forms decode too.
        let unpadded = text.replacing("=", with: "")
        #expect(SignatureEncoding.base64.decode(unpadded.utf8) == bytes)
        let urlSafe = text.replacing("+", with: "-").replacing("/", with: "_")
        #expect(SignatureEncoding.base64.decode(urlSafe.utf8) == bytes)
    }

    @Test(arguments: ["A", "AB=C", "AB===", "A===", "ab cd", "ab*d", "QQ==QQ=="])
    func invalidBase64(_ text: String) {
        #expect(SignatureEncoding.base64.decode(text.utf8) == nil)
    }

    @Test func matchingComparesDecodedBytes() {
        let mac: [UInt8] = Array(SHA256.hash(data: bytes("x")))
        mac.withUnsafeBytes { raw in
            #expect(SignatureEncoding.hex.matches(SignatureEncoding.hex.encode(mac).uppercased().utf8, mac: raw))
            #expect(SignatureEncoding.base64.matches(SignatureEncoding.base64.encode(mac).utf8, mac: raw))
            // A prefix of the right signature, the right one plus a byte, and a different one.
            #expect(!SignatureEncoding.hex.matches(SignatureEncoding.hex.encode(mac.dropLast()).utf8, mac: raw))
            #expect(!SignatureEncoding.hex.matches(SignatureEncoding.hex.encode(mac + [0]).utf8, mac: raw))
            var other = mac
            other[31] ^= 1
            #expect(!SignatureEncoding.base64.matches(SignatureEncoding.base64.encode(other).utf8, mac: raw))
        }
    }

    @Test(arguments: ["", "1614265330.5", "-1", "+1614265330", "1e9", " 1614265330", "1234567890123456"])
    func timestampsAreDecimalSecondsOnly(_ text: String) {
        #expect(TimestampTolerance.unixSeconds(text[...]) == nil)
    }

    @Test func aMalformedTimestampIsABadRequest() throws {
        let verifier = try StandardWebhooks(secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
        let headers = fields([
            "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp": "1614265330.0",
            "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ])
        let refusal = verificationError { () throws(WebhookVerificationError) in
            try verifier.verify(body: bytes(#"{"test": 2432232314}"#), headers: headers, now: 1_614_265_330)
        }
        #expect(refusal == .malformedHeader("webhook-timestamp", expected: "UNIX seconds"))
        #expect(refusal?.status.code == 400)
    }

    @Test func aCustomToleranceWindow() throws {
        let verifier = try StripeSignature(secrets: ["whsec_x"], tolerance: TimestampTolerance(seconds: 10))
        let signature = hmacText("100.{}", key: "whsec_x", encoding: .hex)
        let headers = fields(["Stripe-Signature": "t=100,v1=\(signature)"])
        #expect(try verifier.verify(body: bytes("{}"), headers: headers, now: 110).timestamp == 100)
        #expect(
            verificationError { () throws(WebhookVerificationError) in
                try verifier.verify(body: bytes("{}"), headers: headers, now: 111)
            } == .timestampTooOld)
    }
}

@Suite struct ConfigurationTests {
    @Test func everySchemeIsBuiltFromItsDescription() throws {
        let schemes: [VerificationScheme] = [
            .standardWebhooks(secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]),
            .stripe(secrets: ["whsec_abc"]),
            .github(secrets: ["s"]),
            .shopify(secrets: ["s"]),
            .square(signatureKeys: ["k"], notificationURL: "https://example.com/hook"),
            .hmac(GenericHMACConfiguration(header: "x-uber-signature", secrets: ["s"])),
            .bearer(tokens: ["t"]),
            .headerValue(values: ["v"]),
            .basic(credentials: [BasicCredential(user: "u", password: "p")]),
            .none,
        ]
        for scheme in schemes { _ = try scheme.makeVerifier() }
    }

    @Test func theGitHubExampleThroughTheDescription() throws {
        let verifier = try VerificationScheme.github(secrets: ["It's a Secret to Everybody"]).makeVerifier()
        let headers = fields([
            "X-Hub-Signature-256": "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        ])
        #expect(try verifier.verify(body: bytes("Hello, World!"), headers: headers, now: 0).keyIndex == 0)
    }

    @Test(arguments: [
        VerificationScheme.standardWebhooks(secrets: []),
        .standardWebhooks(secrets: ["whsec_***"]),
        .standardWebhooks(secrets: [], publicKeys: ["whpk_AAAA"]),
        .stripe(secrets: []),
        .github(secrets: [""]),
        .square(signatureKeys: ["k"], notificationURL: ""),
        .hmac(GenericHMACConfiguration(header: "bad header", secrets: ["s"])),
        .hmac(GenericHMACConfiguration(header: "x-sig", signed: [], secrets: ["s"])),
        .hmac(GenericHMACConfiguration(header: "x-sig", signed: [.header("bad:name"), .body], secrets: ["s"])),
        .hmac(GenericHMACConfiguration(header: "x-sig", timestamp: .init(header: "x-time"), secrets: ["s"])),
        .bearer(tokens: []),
    ])
    func mistakesAreFoundAtStartUp(_ scheme: VerificationScheme) {
        #expect(throws: WebhookConfigurationError.self) { try scheme.makeVerifier() }
    }

    @Test func configurationErrorsDoNotRepeatTheSecret() {
        do {
            _ = try StandardWebhooks(secrets: ["whsec_sup3r-s3cret!"])
            Issue.record("expected an error")
        } catch {
            #expect(!error.message.contains("sup3r"))
            #expect(error.message.contains("secret 1"))
        }
    }
}

/// Verifiers and their descriptions end up in logs and test output: no secret may show there.
@Suite struct SecretsStayOutOfDescriptionsTests {
    static let secret = "sup3r-s3cret-value"
    static let whsec = "whsec_" + SignatureEncoding.base64.encode(bytes(secret))

    @Test(arguments: [
        VerificationScheme.standardWebhooks(secrets: [whsec]),
        .stripe(secrets: [secret]),
        .github(secrets: [secret]),
        .shopify(secrets: [secret]),
        .square(signatureKeys: [secret], notificationURL: "https://example.com/hook"),
        .hmac(GenericHMACConfiguration(header: "x-sig", secrets: [secret])),
        .bearer(tokens: [secret]),
        .headerValue(values: [secret]),
        .basic(credentials: [BasicCredential(user: "bridge", password: secret)]),
    ])
    func neitherTheSchemeNorItsVerifierPrintsASecret(_ scheme: VerificationScheme) throws {
        let verifier = try scheme.makeVerifier()
        for text in [
            String(describing: scheme), String(reflecting: scheme), String(describing: verifier),
            String(reflecting: verifier),
        ] {
            #expect(!text.contains(Self.secret), "\(text)")
            #expect(!text.contains(Self.whsec.dropFirst(6)), "\(text)")
        }
        #expect(String(reflecting: verifier).contains("key") || String(reflecting: verifier).contains("secret"))
    }
}
