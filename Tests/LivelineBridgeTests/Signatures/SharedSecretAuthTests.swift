import HTTPTypes
import Testing
@testable import LivelineBridge

/// Bearer tokens, HTTP Basic and a fixed header value (DoorDash Drive).
@Suite struct SharedSecretAuthTests {
    let body = bytes(#"{"event_name":"DASHER_CONFIRMED","external_delivery_id":"D-1"}"#)

    func error(_ verifier: SharedSecretAuth, _ headers: HTTPFields, body: [UInt8]? = nil) -> WebhookVerificationError? {
        verificationError { () throws(WebhookVerificationError) in
            try verifier.verify(body: body ?? self.body, headers: headers, now: 0)
        }
    }

    @Test func bearerAcceptsAnyConfiguredTokenAndRotates() throws {
        let verifier = try SharedSecretAuth.bearer(tokens: ["new-token", "old-token"])
        #expect(
            try verifier.verify(body: body, headers: fields(["Authorization": "Bearer new-token"]), now: 0).keyIndex
                == 0)
        #expect(
            try verifier.verify(body: body, headers: fields(["Authorization": "bearer old-token"]), now: 0).keyIndex
                == 1)
        #expect(error(verifier, fields(["Authorization": "Bearer other-token"])) == .wrongCredentials)
        #expect(error(verifier, fields(["Authorization": "Bearer new-token2"])) == .wrongCredentials)
        #expect(error(verifier, fields(["Authorization": "Bearer new-toke"]))?.status == .unauthorized)
    }

    @Test func bearerInACustomHeader() throws {
        let verifier = try SharedSecretAuth.bearer(tokens: ["t0k3n"], header: "X-Webhook-Auth")
        #expect(error(verifier, fields(["X-Webhook-Auth": "Bearer t0k3n"])) == nil)
        #expect(error(verifier, fields(["Authorization": "Bearer t0k3n"])) == .missingCredentials("X-Webhook-Auth"))
    }

    @Test func bearerWithAnotherSchemeIsMalformed() throws {
        let verifier = try SharedSecretAuth.bearer(tokens: ["t0k3n"])
        let refusal = try #require(error(verifier, fields(["Authorization": "Token t0k3n"])))
        #expect(refusal.status == .badRequest)
        #expect(refusal.reason.contains("Authorization"))
        #expect(!refusal.reason.contains("t0k3n"))
    }

    /// DoorDash Drive sends, in `Authorization`, exactly the value configured for the webhook.
    @Test func doorDashStyleHeaderValue() throws {
        let verifier = try SharedSecretAuth.headerValue(values: ["Basic ZG9vcmRhc2g6c2VjcmV0", "dd-previous-value"])
        #expect(
            try verifier.verify(body: body, headers: fields(["Authorization": "Basic ZG9vcmRhc2g6c2VjcmV0"]), now: 0)
                .keyIndex == 0)
        #expect(
            try verifier.verify(body: body, headers: fields(["Authorization": "dd-previous-value"]), now: 0).keyIndex
                == 1)
        #expect(error(verifier, fields(["Authorization": "basic ZG9vcmRhc2g6c2VjcmV0"])) == .wrongCredentials)
        #expect(error(verifier, fields(["Authorization": "dd-previous-valu"])) == .wrongCredentials)
    }

    @Test func basicUserAndPassword() throws {
        let verifier = try SharedSecretAuth.basic(credentials: [("bridge", "n3w pass"), ("bridge", "old:pass")])
        let new = "Basic " + SignatureEncoding.base64.encode(bytes("bridge:n3w pass"))
        let old = "Basic " + SignatureEncoding.base64.encode(bytes("bridge:old:pass"))
        #expect(try verifier.verify(body: body, headers: fields(["Authorization": new]), now: 0).keyIndex == 0)
        #expect(try verifier.verify(body: body, headers: fields(["Authorization": old]), now: 0).keyIndex == 1)
        let wrong = "Basic " + SignatureEncoding.base64.encode(bytes("bridge:wrong"))
        #expect(error(verifier, fields(["Authorization": wrong])) == .wrongCredentials)
        #expect(error(verifier, fields(["Authorization": "Basic ***"]))?.status == .badRequest)
        #expect(error(verifier, fields(["Authorization": "Bearer abc"]))?.status == .badRequest)
    }

    @Test(arguments: [
        try SharedSecretAuth.bearer(tokens: ["a"]), try SharedSecretAuth.basic(credentials: [("u", "p")]),
        try SharedSecretAuth.headerValue(values: ["v"]),
    ])
    func aMissingAuthorizationHeaderIsA401NamingIt(_ verifier: SharedSecretAuth) throws {
        // Credentials a client can be asked for: 401 (with a challenge, added by ingest), not 400.
        for headers in [fields(["Content-Type": "application/json"]), fields(["Authorization": ""])] {
            let refusal = try #require(error(verifier, headers))
            #expect(refusal == .missingCredentials("Authorization"))
            #expect(refusal.status.code == 401)
            #expect(refusal.reason == "no credentials: the header Authorization is missing or empty")
        }
    }

    @Test func theBodyIsNotLookedAt() throws {
        let verifier = try SharedSecretAuth.bearer(tokens: ["a"])
        #expect(error(verifier, fields(["Authorization": "Bearer a"]), body: [0xFF, 0x00]) == nil)
        #expect(error(verifier, fields(["Authorization": "Bearer a"]), body: []) == nil)
    }

    @Test func configurationMistakes() {
        #expect(throws: WebhookConfigurationError.self) { try SharedSecretAuth.bearer(tokens: []) }
        #expect(throws: WebhookConfigurationError.self) { try SharedSecretAuth.bearer(tokens: [""]) }
        #expect(throws: WebhookConfigurationError.self) { try SharedSecretAuth.basic(credentials: [("a:b", "c")]) }
        #expect(throws: WebhookConfigurationError.self) {
            try SharedSecretAuth.headerValue("bad header", values: ["v"])
        }
    }
}
