import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// GitHub and Shopify sign the body but not their delivery-id headers, so their sources
/// deduplicate on the body's SHA-256: a captured webhook replayed under a new delivery id is a
/// duplicate, and a reused delivery id cannot get a different event dropped.
@Suite struct UnsignedDeliveryIDTests {
    /// The example's orders source as a GitHub or Shopify sender, its event id in the delivery header.
    static func configure(_ scheme: VerificationScheme, idHeader: String) -> (inout BridgeConfiguration) throws -> Void
    {
        { configuration in
            let index = try #require(configuration.sources.firstIndex { $0.name == "orders" })
            configuration.sources[index].scheme = scheme
            configuration.sources[index].verifier = try scheme.makeVerifier()
            configuration.sources[index].eventID = .header(idHeader)
        }
    }

    static let schemes: [(VerificationScheme, String)] = [
        (.github(secrets: ["gh-secret"]), "X-GitHub-Delivery"),
        (.shopify(secrets: ["shop-secret"]), "X-Shopify-Webhook-Id"),
    ]

    @Test(arguments: StoreKind.allCases, [0, 1])
    func aReplayUnderAnotherDeliveryIDIsADuplicate(_ kind: StoreKind, scheme index: Int) async throws {
        let (scheme, idHeader) = Self.schemes[index]
        try await RunningBridge.with(store: kind, configure: Self.configure(scheme, idHeader: idHeader)) { bridge in
            func post(_ body: String, id: String) async throws -> (Int, [String: Any]) {
                let signed = try WebhookSigner(scheme: scheme).sign(
                    body: bytes(body), url: "", now: BridgeClock.unixSeconds(BridgeClock.now()),
                    headers: fields([idHeader: id]))
                let answer = try await Curl.run(
                    "\(bridge.base)/v1/webhooks/orders", Curl.headers(signed), body: bytes(body))
                return (answer.status, try jsonObject(answer.body))
            }
            let (first, firstJSON) = try await post(WebhookIngestTests.note, id: "delivery-1")
            #expect(first == 202)
            #expect((firstJSON["event"] as? String)?.hasPrefix("sha256:") == true)
            let (replayed, replayedJSON) = try await post(WebhookIngestTests.note, id: "delivery-2")
            #expect(replayed == 200 && replayedJSON["status"] as? String == "duplicate")

            let other = WebhookIngestTests.note.replacingOccurrences(of: "\"sequence\": 7", with: "\"sequence\": 8")
            let (reused, _) = try await post(other, id: "delivery-1")
            #expect(reused == 202, "a reused delivery id must not drop another event")
            #expect(try await bridge.store.pendingEvents(for: "58213") == 2)
            // The sender's id still shows in the log, beside the hash that keys the event.
            #expect(bridge.logs.lines.contains { $0.contains("webhook stored") && $0.contains("delivery=delivery-1") })
        }
    }
}
