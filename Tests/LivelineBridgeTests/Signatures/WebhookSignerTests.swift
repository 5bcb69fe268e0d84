import Crypto
import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// Every scheme's signer against that scheme's verifier: what `liveline bridge send` makes,
/// the bridge accepts, and a changed byte it refuses.
@Suite struct WebhookSignerTests {
    static let body = bytes(#"{"id": "evt_1", "type": "order.eta", "data": {"order_id": 7}}"#)
    static let url = "https://bridge.example.com/v1/webhooks/test"
    static let now: Int64 = 1_795_437_000
    static let whsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    struct Case: Sendable, CustomTestStringConvertible {
        var scheme: VerificationScheme
        /// Whether the signature covers the body (shared secrets do not).
        var signsBody: Bool = true
        var testDescription: String { scheme.description }
    }

    static let cases: [Case] = [
        Case(scheme: .standardWebhooks(secrets: [whsec, "whsec_" + SignatureEncoding.base64.encode(bytes("older"))])),
        Case(scheme: .stripe(secrets: ["whsec_stripe_test_secret"])),
        Case(scheme: .github(secrets: ["It's a Secret to Everybody"])),
        Case(scheme: .shopify(secrets: ["shpss_client_secret"])),
        Case(scheme: .square(signatureKeys: ["square-signature-key"], notificationURL: url)),
        Case(scheme: .hmac(GenericHMACConfiguration(header: "x-uber-signature", secrets: ["uber-demo"]))),
        Case(
            scheme: .hmac(
                GenericHMACConfiguration(
                    header: "X-Signature", algorithm: .sha512, encoding: .base64, prefix: "v1=",
                    signed: [.header("X-Timestamp"), .literal("."), .url, .literal("."), .body],
                    timestamp: GenericHMAC.Timestamp(header: "X-Timestamp"), secrets: ["generic-secret"]))),
        Case(
            scheme: .hmac(
                GenericHMACConfiguration(header: "X-Legacy", algorithm: .sha1, prefix: "sha1=", secrets: ["legacy"]))),
        Case(scheme: .bearer(tokens: ["token-1"]), signsBody: false),
        Case(scheme: .headerValue(header: "Authorization", values: ["Bearer dd-demo"]), signsBody: false),
        Case(scheme: .basic(credentials: [BasicCredential(user: "bridge", password: "p4ss:word")]), signsBody: false),
        Case(scheme: .none, signsBody: false),
    ]

    @Test(arguments: cases)
    func whatTheSignerMakesTheVerifierAccepts(_ testCase: Case) throws {
        let headers = try WebhookSigner(scheme: testCase.scheme).sign(body: Self.body, url: Self.url, now: Self.now)
        #expect(headers[.contentType] == "application/json")
        let verifier = try testCase.scheme.makeVerifier()
        let verified = try verifier.verify(body: Self.body, headers: headers, url: Self.url, now: Self.now)
        if case .none = testCase.scheme {} else { #expect(verified.keyIndex == 0) }
        if testCase.signsBody {
            var changed = Self.body
            changed[changed.count - 2] = UInt8(ascii: "8")
            do {
                _ = try verifier.verify(body: changed, headers: headers, url: Self.url, now: Self.now)
                Issue.record("a changed body passed")
            } catch {
                #expect(error == .signatureMismatch)
            }
        }
    }

    @Test func signaturesAreTheSendersOwn() throws {
        let github = try WebhookSigner(scheme: .github(secrets: ["It's a Secret to Everybody"])).sign(
            body: bytes("Hello, World!"), url: Self.url, now: Self.now)
        // GitHub's documented example.
        #expect(
            github[HTTPField.Name("X-Hub-Signature-256")!]
                == "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")

        let stripe = try WebhookSigner(scheme: .stripe(secrets: ["whsec_x"])).sign(
            body: Self.body, url: Self.url, now: Self.now)
        let expected = hmacText(bytes("\(Self.now).") + Self.body, key: bytes("whsec_x"), encoding: .hex)
        #expect(stripe[HTTPField.Name("Stripe-Signature")!] == "t=\(Self.now),v1=\(expected)")

        let standard = try WebhookSigner(scheme: .standardWebhooks(secrets: [Self.whsec])).sign(
            body: Self.body, url: Self.url, now: Self.now, id: "msg_1")
        let key = try #require(SignatureEncoding.base64.decode(bytes("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")))
        #expect(
            standard[HTTPField.Name("webhook-signature")!] == "v1,"
                + hmacText(bytes("msg_1.\(Self.now).") + Self.body, key: key, encoding: .base64))
        #expect(standard[HTTPField.Name("webhook-id")!] == "msg_1")
        #expect(standard[HTTPField.Name("webhook-timestamp")!] == String(Self.now))

        let random = try WebhookSigner(scheme: .standardWebhooks(secrets: [Self.whsec])).sign(
            body: Self.body, url: Self.url, now: Self.now)
        #expect(random[HTTPField.Name("webhook-id")!]?.hasPrefix("msg_") == true)
    }

    /// Shopify names every delivery in `X-Shopify-Webhook-Id`, which rules dedupe on: the
    /// signer sends the id given, else a new one, and keeps one the caller set.
    @Test func shopifyDeliveriesCarryAWebhookID() throws {
        let signer = WebhookSigner(scheme: .shopify(secrets: ["shpss_client_secret"]))
        let id = try #require(HTTPField.Name("X-Shopify-Webhook-Id"))
        #expect(try signer.sign(body: Self.body, url: Self.url, now: Self.now, id: "1c3e9a52")[id] == "1c3e9a52")
        let fresh = try signer.sign(body: Self.body, url: Self.url, now: Self.now)[id]
        #expect(fresh.flatMap { UUID(uuidString: $0) } != nil, "\(fresh ?? "none")")
        #expect(fresh != (try signer.sign(body: Self.body, url: Self.url, now: Self.now)[id]), "a new id each time")
        var given = HTTPFields()
        given[id] = "kept"
        #expect(try signer.sign(body: Self.body, url: Self.url, now: Self.now, headers: given)[id] == "kept")
    }

    @Test func whatCannotBeSignedSaysWhy() throws {
        let publicOnly = VerificationScheme.standardWebhooks(
            secrets: [], publicKeys: ["whpk_" + SignatureEncoding.base64.encode([UInt8](repeating: 1, count: 32))])
        #expect(throws: WebhookSigningError.self) {
            try WebhookSigner(scheme: publicOnly).sign(body: Self.body, url: Self.url, now: Self.now)
        }

        let signsAHeader = VerificationScheme.hmac(
            GenericHMACConfiguration(
                header: "X-Signature", signed: [.header("X-Request-Id"), .body], secrets: ["s"]))
        do {
            _ = try WebhookSigner(scheme: signsAHeader).sign(body: Self.body, url: Self.url, now: Self.now)
            Issue.record("signed without the header it signs")
        } catch {
            #expect(error.message == "hmac X-Signature: the signed header X-Request-Id was not given")
        }
        // Given, it is signed and sent.
        let headers = try WebhookSigner(scheme: signsAHeader).sign(
            body: Self.body, url: Self.url, now: Self.now, headers: fields(["X-Request-Id": "r-1"]))
        #expect(headers[HTTPField.Name("X-Request-Id")!] == "r-1")
        _ = try signsAHeader.makeVerifier().verify(body: Self.body, headers: headers, url: Self.url, now: Self.now)
    }
}
