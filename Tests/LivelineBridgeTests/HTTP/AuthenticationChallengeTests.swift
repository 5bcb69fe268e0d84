import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// A sender of a bearer, basic or header-value source that sends no credentials is asked for
/// them: 401 with a `WWW-Authenticate` challenge (RFC 9110), not a 400 about a header.
@Suite struct AuthenticationChallengeTests {
    /// The example's doordash source (header-value) with another scheme and its secrets.
    static func doordash(_ scheme: VerificationScheme) -> (inout BridgeConfiguration) throws -> Void {
        { configuration in
            let index = try #require(configuration.sources.firstIndex { $0.name == "doordash" })
            configuration.sources[index].scheme = scheme
            configuration.sources[index].verifier = try scheme.makeVerifier()
        }
    }

    @Test(arguments: [
        (
            VerificationScheme.headerValue(values: ["Bearer dd-demo"]),
            #"Header realm="doordash", header="Authorization""#, "Bearer nope"
        ),
        (.bearer(tokens: ["dd-demo"]), #"Bearer realm="doordash""#, "Bearer nope"),
        (
            .basic(credentials: [BasicCredential(user: "dd", password: "demo")]),
            #"Basic realm="doordash", charset="UTF-8""#, "Basic eHg6eXk="
        ),
    ])
    func missingOrWrongCredentialsAreA401WithAChallenge(
        scheme: VerificationScheme, challenge: String, wrongCredentials: String
    ) async throws {
        try await RunningBridge.with(configure: Self.doordash(scheme)) { bridge in
            let missing = try await Curl.run(
                "\(bridge.base)/v1/webhooks/doordash", ["-H", "Content-Type: application/json"],
                body: bytes(WebhookIngestTests.doorDash))
            #expect(missing.status == 401)
            #expect(missing.headers["www-authenticate"] == challenge)
            let json = try jsonObject(missing.body)
            #expect(json["error"] as? String == "missing-credentials")
            #expect(json["reason"] as? String == "no credentials: the header Authorization is missing or empty")

            // Wrong ones are a 401 with the same challenge; nothing is stored either way.
            let wrong = try await Curl.run(
                "\(bridge.base)/v1/webhooks/doordash",
                ["-H", "Content-Type: application/json", "-H", "Authorization: \(wrongCredentials)"],
                body: bytes(WebhookIngestTests.doorDash))
            #expect(wrong.status == 401)
            #expect(wrong.headers["www-authenticate"] == challenge)
            #expect(try jsonObject(wrong.body)["error"] as? String == "bad-credentials")
            #expect(try await bridge.store.counts().pendingEvents == 0)
        }
    }

    @Test func signatureSchemesAnswerAMissingSignatureWithA400AndNoChallenge() async throws {
        try await RunningBridge.with { bridge in
            let answer = try await Curl.run(
                "\(bridge.base)/v1/webhooks/uber", ["-H", "Content-Type: application/json"],
                body: bytes(WebhookIngestTests.uber))
            #expect(answer.status == 400)
            #expect(answer.headers["www-authenticate"] == nil)
        }
    }
}
