import HTTPTypes
import Testing
@testable import LivelineBridge

/// The examples the senders publish themselves, byte for byte.
@Suite struct PublishedVectorTests {
    @Test func standardWebhooksSpecificationExample() throws {
        let verifier = try StandardWebhooks(secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
        let headers = fields([
            "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
            "webhook-timestamp": "1614265330",
            "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ])
        let verified = try verifier.verify(body: bytes(#"{"test": 2432232314}"#), headers: headers, now: 1_614_265_330)
        #expect(verified == VerifiedWebhook(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, keyIndex: 0))
    }

    @Test func gitHubDocumentedExample() throws {
        let verifier = try GitHubSignature(secrets: ["It's a Secret to Everybody"])
        let headers = fields([
            "X-Hub-Signature-256": "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        ])
        let verified = try verifier.verify(body: bytes("Hello, World!"), headers: headers, now: 0)
        #expect(verified.keyIndex == 0)
    }

    /// Square's SDK tests (Python `squareup`, Java, Go, Node, PHP, Ruby all share it). The body
    /// says `"type":"webhooks.test_notification"` and `"data":{"type":"webhooks",…}`.
    static let squareBody =
        #"{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}"#

    @Test func squareSDKExample() throws {
        let verifier = try SquareSignature(
            signatureKeys: ["Ibxx_5AKakO-3qeNVR61Dw"],
            notificationURL: "https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9")
        let headers = fields(["x-square-hmacsha256-signature": "GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4="])
        #expect(try verifier.verify(body: bytes(Self.squareBody), headers: headers, now: 0).keyIndex == 0)
    }

    /// The body the brief first quoted (`webhook.test`, `"type":"webhook"`) is not the one Square
    /// signed: one changed byte and the published signature no longer matches.
    @Test func squareExampleDependsOnEveryByte() throws {
        let verifier = try SquareSignature(
            signatureKeys: ["Ibxx_5AKakO-3qeNVR61Dw"],
            notificationURL: "https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9")
        let headers = fields(["x-square-hmacsha256-signature": "GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4="])
        let other =
            #"{"merchant_id":"MLEFBHHSJGVHD","type":"webhook.test","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhook","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}"#
        #expect(
            verificationError { () throws(WebhookVerificationError) in
                try verifier.verify(body: bytes(other), headers: headers, now: 0)
            } == .signatureMismatch)
    }

    /// Square's SDK tests also sign bodies with characters that HTML escaping would change.
    @Test(arguments: [
        (#"{"data":{"type":"webhooks","id":">id<"}}"#, "Cxt7+aTi4rKgcA0bC4g9EHdVtLSDWdqccmL5MvihU4U="),
        (#"{"data":{"type":"webhooks","id":"fake_id"}}"#, "W3FlCNk5IA3ZQ2LHTWoajvzfaDu/OwY2tNHIHC3IUOA="),
    ])
    func squareSDKEscapingExamples(body: String, signature: String) throws {
        let verifier = try SquareSignature(
            signatureKeys: ["signature-key"], notificationURL: "https://webhook.site/webhooks")
        let headers = fields(["x-square-hmacsha256-signature": signature])
        #expect(try verifier.verify(body: bytes(body), headers: headers, now: 0).keyIndex == 0)
    }
}
