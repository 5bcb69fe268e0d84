import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// Webhooks the bridge must refuse before storing, each as a sender (or an attacker) would
/// send it over loopback: a blank event id, a body with too many keys or levels, bytes that are
/// not UTF-8, an activity key the registry would refuse. Where the refusal decides what is
/// stored, on SQLite and PostgreSQL.
@Suite struct StrictInputTests {
    /// Signs `body` as the uber source's sender (hex HMAC of the body) and posts it with curl.
    static func postUber(_ bridge: RunningBridge, _ body: [UInt8]) async throws -> (status: Int, json: [String: Any]) {
        let signed = try WebhookSigner(scheme: try bridge.source("uber").scheme).sign(
            body: body, url: "\(bridge.base)/v1/webhooks/uber", now: BridgeClock.unixSeconds(BridgeClock.now()))
        let answer = try await Curl.run("\(bridge.base)/v1/webhooks/uber", Curl.headers(signed), body: body)
        return (answer.status, try jsonObject(answer.body))
    }

    static func uberEvent(id: String, delivery: String = "del_9", created: Int = 1_795_437_000) -> String {
        #"{"id": \#(id), "kind": "event.delivery_status", "status": "pickup_complete", "created": \#(created), "delivery_id": \#(delivery), "data": {"dropoff_eta": "2026-11-23T13:40:00+01:00"}}"#
    }

    // MARK: Event ids

    @Test(arguments: StoreKind.allCases)
    func aBlankEventIDIsRefusedSoLaterEventsAreNotDroppedAsDuplicates(_ kind: StoreKind) async throws {
        try await RunningBridge.with(store: kind) { bridge in
            for (blank, created) in [(#""""#, 1), (#""   ""#, 2), (#""\t\n""#, 3)] {
                let (status, json) = try await Self.postUber(
                    bridge, bytes(Self.uberEvent(id: blank, delivery: #""del_9""#, created: created)))
                #expect(status == 422)
                #expect(json["error"] as? String == "blank-event-id")
                #expect((json["reason"] as? String)?.contains("/id (event-id) is empty or only whitespace") == true)
                #expect((json["reason"] as? String)?.contains("when-missing: body-hash") == true)
            }
            #expect(try await bridge.store.counts().pendingEvents == 0)
            // A real id still goes through.
            let (status, _) = try await Self.postUber(
                bridge, bytes(Self.uberEvent(id: #""evt_1""#, delivery: #""del_9""#)))
            #expect(status == 202)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSourceMayFallBackToTheBodysHashForAMissingOrBlankID(_ kind: StoreKind) async throws {
        try await RunningBridge.with(
            store: kind,
            configure: { configuration in
                let index = try #require(configuration.sources.firstIndex { $0.name == "uber" })
                configuration.sources[index].missingEventID = .bodyHash
            }
        ) { bridge in
            let first = bytes(Self.uberEvent(id: #""""#, delivery: #""del_9""#, created: 1))
            let second = bytes(Self.uberEvent(id: #"" ""#, delivery: #""del_9""#, created: 2))
            let absent = bytes(
                #"{"kind": "event.delivery_status", "status": "x", "created": 3, "delivery_id": "del_9", "data": {"dropoff_eta": "2026-11-23T13:40:00+01:00"}}"#
            )
            for body in [first, second, absent] {
                let (status, json) = try await Self.postUber(bridge, body)
                #expect(status == 202, "\(json)")
                #expect((json["event"] as? String)?.hasPrefix("sha256:") == true)
            }
            // Each is its own event; the same bytes again are a duplicate.
            #expect(try await bridge.store.counts().pendingEvents == 3)
            let (again, json) = try await Self.postUber(bridge, first)
            #expect(again == 200 && json["status"] as? String == "duplicate")
            #expect(try await bridge.store.counts().pendingEvents == 3)
        }
    }

    // MARK: Activity keys

    @Test(arguments: StoreKind.allCases)
    func anActivityKeyTheRegistryRefusesIsRefusedBeforeStoring(_ kind: StoreKind) async throws {
        try await RunningBridge.with(store: kind) { bridge in
            let cases: [(String, String)] = [
                (#""""#, "the activity key is empty"),
                ("\"\(String(repeating: "k", count: 257))\"", "the activity key is 257 bytes long"),
                (#""del\u0007""#, "the activity key holds the control character U+0007"),
                (#""del\n9""#, "the activity key holds the control character U+000A"),
            ]
            for (index, (key, problem)) in cases.enumerated() {
                let (status, json) = try await Self.postUber(
                    bridge, bytes(Self.uberEvent(id: "\"evt_\(index)\"", delivery: key)))
                #expect(status == 422)
                #expect(json["error"] as? String == "bad-activity-key")
                #expect(
                    json["reason"] as? String == "/delivery_id (activity-key): \(problem); \(ActivityKeyRule.summary)")
            }
            let counts = try await bridge.store.counts()
            #expect(counts.pendingEvents == 0)

            // The registry says the same of the same keys, and the longest key both accept is 256 bytes.
            let tooLong = try await bridge.registry(
                .put, String(repeating: "k", count: 257), body: #"{"source": "uber"}"#)
            #expect(tooLong.status == 400 && tooLong.text.contains("the activity key is 257 bytes long"))
            let longest = String(repeating: "k", count: 256)
            let (status, _) = try await Self.postUber(
                bridge, bytes(Self.uberEvent(id: #""evt_ok""#, delivery: "\"\(longest)\"")))
            #expect(status == 202)
            #expect(try await bridge.store.pendingEvents(for: longest) == 1)
        }
    }

    // MARK: Bytes and structure

    @Test func invalidUTF8IsRefusedNeverRepaired() async throws {
        try await RunningBridge.with { bridge in
            // Two byte strings that a repairing decoder reads as the same key, "del_\u{FFFD}".
            for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80]] {
                let body =
                    bytes(#"{"id": "evt_"#) + bad
                    + bytes(#"", "kind": "event.delivery_status", "status": "x", "created": 1, "delivery_id": "del_"#)
                    + bad + bytes(#""}"#)
                let (status, json) = try await Self.postUber(bridge, body)
                #expect(status == 400)
                #expect(json["error"] as? String == "bad-json")
                #expect(
                    json["reason"] as? String
                        == "body is not JSON: invalid UTF-8 (RFC 8259 requires JSON text to be UTF-8) at byte 12")
            }
            #expect(try await bridge.store.counts().pendingEvents == 0)
            // Escaped, the same text is fine: UTF-8 on the wire is what counts.
            let (status, _) = try await Self.postUber(
                bridge, bytes(Self.uberEvent(id: #""evt_é""#, delivery: #""del_\u00e9""#)))
            #expect(status == 202)
            #expect(try await bridge.store.pendingEvents(for: "del_é") == 1)
        }
    }

    @Test func aBodyWithTooManyKeysOrLevelsIsA413() async throws {
        try await RunningBridge.with(configure: { configuration in
            configuration.bodyLimit = 256 * 1024
            configuration.jsonLimits = .init(depth: 8, keys: 100)
        }) { bridge in
            let filler = (0..<200).map { "\"k\($0)\": 0" }.joined(separator: ", ")
            let wide =
                #"{"id": "evt_1", "kind": "event.delivery_status", "status": "x", "created": 1, "delivery_id": "del_9", "extra": {\#(filler)}}"#
            let (status, json) = try await Self.postUber(bridge, bytes(wide))
            #expect(status == 413)
            #expect(json["error"] as? String == "too-complex")
            #expect(
                (json["reason"] as? String)?.hasPrefix("body is too complex: more than 100 object keys at byte ")
                    == true)

            let deep =
                #"{"id": "evt_2", "kind": "event.delivery_status", "status": "x", "created": 1, "delivery_id": "del_9", "extra": \#(String(repeating: "[", count: 8))\#(String(repeating: "]", count: 8))}"#
            let (deepStatus, deepJSON) = try await Self.postUber(bridge, bytes(deep))
            #expect(deepStatus == 413)
            #expect(
                (deepJSON["reason"] as? String)?.hasPrefix("body is too complex: nested more than 8 levels deep")
                    == true)

            #expect(try await bridge.store.counts().pendingEvents == 0)
            let metrics = try await Curl.run("\(bridge.base)/metrics")
            #expect(
                metrics.body.contains(#"liveline_webhooks_total{source="uber",result="too_large"} 2"#),
                "\(metrics.body)")
        }
    }
}
