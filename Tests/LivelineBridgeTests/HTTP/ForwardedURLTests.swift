import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// A generic HMAC source that signs the URL verifies the URL the sender posted to, behind a
/// proxy too: from `Forwarded`, `X-Forwarded-Host` and `X-Forwarded-Proto`, or from the
/// configured `public-url`.
@Suite struct ForwardedURLTests {
    static let publicURL = "https://hooks.example.com/v1/webhooks/uber"

    /// The example's uber source, signing the URL and then the body.
    static func signingURL(_ configuration: inout BridgeConfiguration) throws {
        let index = try #require(configuration.sources.firstIndex { $0.name == "uber" })
        let scheme = VerificationScheme.hmac(
            GenericHMACConfiguration(header: "x-uber-signature", signed: [.url, .body], secrets: ["uber-demo"]))
        configuration.sources[index].scheme = scheme
        configuration.sources[index].verifier = try scheme.makeVerifier()
    }

    static func post(_ bridge: RunningBridge, signedFor url: String, _ extra: [String]) async throws -> Int {
        let body = bytes(WebhookIngestTests.uber)
        let signed = try WebhookSigner(scheme: try bridge.source("uber").scheme).sign(body: body, url: url, now: 0)
        return try await Curl.run("\(bridge.base)/v1/webhooks/uber", Curl.headers(signed) + extra, body: body).status
    }

    @Test func theURLBehindAProxyIsTheOneTheSenderSigned() async throws {
        try await RunningBridge.with(configure: Self.signingURL) { bridge in
            // Signed for the public URL, received from a proxy that says where it came in.
            let direct = try await Self.post(bridge, signedFor: Self.publicURL, [])
            #expect(direct == 401)
            let proxied = try await Self.post(
                bridge, signedFor: Self.publicURL,
                [
                    "-H", "X-Forwarded-Host: hooks.example.com", "-H", "X-Forwarded-Proto: https",
                ])
            #expect(proxied == 202)
            let forwarded = ["-H", #"Forwarded: for=203.0.113.7;host="hooks.example.com";proto=https, for=10.0.0.1"#]
            // The same event again (so a duplicate, 200), verified through Forwarded.
            let viaForwarded = try await Self.post(bridge, signedFor: Self.publicURL, forwarded)
            #expect(viaForwarded == 200)
            // Without a proxy's word the request's own Host is the URL.
            let own = try await Self.post(bridge, signedFor: "http://127.0.0.1:\(bridge.port)/v1/webhooks/uber", [])
            #expect(own == 200)
        }
    }

    @Test func theURLIsRebuiltFromTheFirstHopAProxyNames() {
        let url = { (pairs: KeyValuePairs<String, String>) in
            ForwardedURL.url(headers: fields(pairs), authority: "10.0.0.5:8080", path: "/v1/webhooks/uber?x=1")
        }
        #expect(url([:]) == "http://10.0.0.5:8080/v1/webhooks/uber?x=1")
        #expect(url(["X-Forwarded-Proto": "HTTPS, http"]) == "https://10.0.0.5:8080/v1/webhooks/uber?x=1")
        #expect(
            url(["X-Forwarded-Host": "hooks.example.com, proxy.internal"])
                == "http://hooks.example.com/v1/webhooks/uber?x=1")
        #expect(
            url(["Forwarded": #"for=1.2.3.4;proto=https;host="hooks.example.com:8443""#, "X-Forwarded-Host": "other"])
                == "https://hooks.example.com:8443/v1/webhooks/uber?x=1")
        #expect(
            url(["Forwarded": "for=1.2.3.4", "X-Forwarded-Host": "hooks.example.com"])
                == "http://hooks.example.com/v1/webhooks/uber?x=1")
    }

    @Test func aPublicURLStandsForTheURLPart() throws {
        let yaml = """
            liveline-bridge: 1
            sources:
              uber:
                verify: { scheme: hmac, header: x-uber-signature, signed: [url, body], public-url: \(Self.publicURL) }
                secrets: [uber-demo]
                event-id: /id
                event-type: /kind
                activity-key: /delivery_id
                scenario: delivery.yaml
                events:
                  note:
                    trigger: courier-note
            """
        let configuration = try BridgeConfigurationLoader().load(yaml: yaml, file: testConfigurationFile)
        let source = try #require(configuration.source(named: "uber"))
        #expect(!source.scheme.signsRequestURL)
        let body = bytes(WebhookIngestTests.uber)
        let signed = try WebhookSigner(
            scheme: .hmac(
                GenericHMACConfiguration(header: "x-uber-signature", signed: [.url, .body], secrets: ["uber-demo"]))
        )
        .sign(body: body, url: Self.publicURL, now: 0)
        // Whatever URL the request reached the bridge at.
        _ = try source.verifier.verify(body: body, headers: signed, url: "http://127.0.0.1:1/elsewhere", now: 0)

        let errors = configurationErrors(replacing("signed: [url, body]", with: "signed: [body]", in: yaml)).map(
            \.message)
        #expect(
            errors == ["public-url stands for the url part of what is signed; add url to signed, or remove public-url"])
    }
}
