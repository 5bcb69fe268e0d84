import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// `PUT`, `GET` and `DELETE /v1/activities/{key}` over real HTTP on loopback.
@Suite struct ActivityRegistryAPITests {
    static let startToken = "80f7a1" + String(repeating: "0", count: 50) + "9c3e51aa"
    static let updateToken = String(repeating: "ab", count: 28) + "DEADBEEF"

    @Test func withoutAKnownKeyTheRegistryAnswers401() async throws {
        try await RunningBridge.with { bridge in
            let none = try await Curl.run("\(bridge.base)/v1/activities/D-1")
            #expect(none.status == 401)
            #expect(none.headers["www-authenticate"] == #"Bearer realm="liveline""#)
            #expect(try jsonObject(none.body)["error"] as? String == "missing-api-key")

            let wrong = try await Curl.run(
                "\(bridge.base)/v1/activities/D-1", ["-X", "DELETE", "-H", "Authorization: Bearer demo-kex"])
            #expect(wrong.status == 401)
            #expect(try jsonObject(wrong.body)["reason"] as? String == "the API key is not one this bridge knows")

            let basic = try await bridge.registry(.get, "D-1", apiKey: nil)
            #expect(basic.status == 401)

            // Keys stored with `addAPIKey` count as well as the configured hashes.
            try await bridge.store.addAPIKey(name: "ops", key: "stored-key-1", now: BridgeClock.now())
            #expect(try await bridge.registry(.get, "D-1", apiKey: "stored-key-1").status == 404)
            #expect(try await bridge.registry(.get, "D-1").status == 404)
        }
    }

    @Test func putGetDeleteRoundTripWithMaskedTokens() async throws {
        try await RunningBridge.with { bridge in
            let created = try await Curl.run(
                "\(bridge.base)/v1/activities/D-1",
                ["-X", "PUT", "-H", "Authorization: Bearer demo-key", "-H", "Content-Type: application/json"],
                body: bytes(
                    #"{"push-to-start-token": "\#(Self.startToken)", "source": "doordash", "frequent-updates": true}"#))
            #expect(created.status == 201, "\(created.body)")
            let shown = try jsonObject(created.body)
            #expect(shown["key"] as? String == "D-1")
            #expect(shown["source"] as? String == "doordash")
            #expect(shown["scenario"] as? String == "delivery.yaml")
            #expect(shown["lifecycle"] as? String == "pending")
            #expect(shown["push-to-start-token"] as? String == "…9c3e51aa")
            #expect(shown["update-token"] is NSNull)
            #expect(shown["frequent-updates"] as? Bool == true)
            #expect(shown["pending-events"] as? Int == 0)
            #expect(shown["queued-pushes"] as? Int == 0)
            #expect(shown["last-push"] is NSNull)
            #expect((shown["content-state"] as? [String: Any])?["status"] as? String == "pending")
            #expect(!created.body.contains(Self.startToken))
            #expect(bridge.wakes.count == 1)

            // Two events wait for it.
            for status in ["DASHER_CONFIRMED_PICKUP_ARRIVAL", "DASHER_CONFIRMED_DROPOFF_ARRIVAL"] {
                let body = #"{"event_name": "\#(status)", "external_delivery_id": "D-1"}"#
                let answer = try await bridge.post("doordash", body, headers: WebhookIngestTests.doorDashAuth)
                #expect(answer.status == 202, "\(answer.text)")
            }

            // The dispatcher moves it on; a PUT that only brings a token keeps all the rest.
            var record = try #require(try await bridge.store.activity("D-1"))
            record.lifecycle = .active
            record.engineState = [1, 2, 3]
            record.lastPush = PushAnswer(
                at: 1_795_437_000_250, status: 200, apnsID: "5D9B8F8E-0000")
            try await bridge.store.upsertActivity(record)
            let changed = try await bridge.registry(.put, "D-1", body: #"{"update-token": "\#(Self.updateToken)"}"#)
            #expect(changed.status == 200, "\(changed.text)")
            let now = try jsonObject(changed.text)
            #expect(now["update-token"] as? String == "…deadbeef")
            #expect(now["push-to-start-token"] as? String == "…9c3e51aa")
            #expect(now["frequent-updates"] as? Bool == true)
            #expect(now["lifecycle"] as? String == "active")
            #expect(now["pending-events"] as? Int == 2)
            let lastPush = try #require(now["last-push"] as? [String: Any])
            #expect(lastPush["at"] as? String == "2026-11-23T12:30:00.250Z")
            #expect(lastPush["status"] as? Int == 200 && lastPush["apns-id"] as? String == "5D9B8F8E-0000")
            #expect(try await bridge.store.activity("D-1")?.engineState == [1, 2, 3])
            #expect(try await bridge.store.activity("D-1")?.updateToken == Self.updateToken.lowercased())

            let got = try await Curl.run("\(bridge.base)/v1/activities/D-1", ["-H", "Authorization: Bearer demo-key"])
            #expect(got.status == 200)
            #expect(try jsonObject(got.body)["pending-events"] as? Int == 2)

            // null removes a token; the other still reaches the activity.
            let removed = try await bridge.registry(.put, "D-1", body: #"{"push-to-start-token": null}"#)
            #expect(try jsonObject(removed.text)["push-to-start-token"] is NSNull)

            let deleted = try await Curl.run(
                "\(bridge.base)/v1/activities/D-1", ["-X", "DELETE", "-H", "Authorization: Bearer demo-key"])
            #expect(deleted.status == 204 && deleted.body.isEmpty)
            let gone = try await bridge.registry(.get, "D-1")
            let goneError = try jsonObject(gone.text)["error"] as? String
            #expect(gone.status == 404 && goneError == "unknown-activity")
            #expect(try await bridge.registry(.delete, "D-1").status == 404)
        }
    }

    @Test func anAndroidPhoneRegistersItsFCMTokenAsOnePlatform() async throws {
        // The uber source's story loses its android: block: an Android key there is told so.
        try await RunningBridge.with(configure: { configuration in
            let uber = try #require(configuration.sources.firstIndex { $0.name == "uber" })
            let index = configuration.sources[uber].activityIndex
            configuration.sources[uber].scenario.activities[index].android = nil
        }) { bridge in
            let created = try await bridge.registry(
                .put, "D-1", body: #"{"fcm-token": "dXk1:APA91bOwnPhone1", "source": "doordash"}"#)
            #expect(created.status == 201, "\(created.text)")
            let shown = try jsonObject(created.text)
            #expect(shown["platform"] as? String == "android" && shown["fcm-token"] as? String == "…wnPhone1")
            #expect(shown["warning"] == nil && !created.text.contains("dXk1:APA91b"))
            let twice = try await bridge.registry(.put, "D-1", body: #"{"update-token": "\#(Self.updateToken)"}"#)
            let twiceCode = try jsonObject(twice.text)["error"] as? String
            #expect(twice.status == 422 && twiceCode == "two-platforms")
            let bad = try await bridge.registry(.put, "D-1", body: #"{"fcm-token": "has space"}"#)
            let badCode = try jsonObject(bad.text)["error"] as? String
            #expect(bad.status == 400 && badCode == "bad-field")
            // Switching to an iPhone names the Android field null.
            let switched = try await bridge.registry(
                .put, "D-1", body: #"{"update-token": "\#(Self.updateToken)", "fcm-token": null}"#)
            let switchedPlatform = try jsonObject(switched.text)["platform"] as? String
            #expect(switched.status == 200 && switchedPlatform == "ios")

            let silent = try await bridge.registry(
                .put, "U-1", body: #"{"fcm-token": "fid:cXk1Installation", "source": "uber"}"#)
            #expect(silent.status == 201, "\(silent.text)")
            let warning = try #require(try jsonObject(silent.text)["warning"] as? String)
            #expect(warning.contains("no android: block") && warning.contains("uber"), "\(warning)")
            let logged = bridge.logs.all.contains { $0.message.contains("sent nothing") && $0.level == .warning }
            #expect(logged)
        }
    }

    @Test func registrationsAreChecked() async throws {
        try await RunningBridge.with { bridge in
            func put(_ body: String, key: String = "D-2") async throws -> (Int, String?, String?) {
                let answer = try await bridge.registry(.put, key, body: body)
                let object = try jsonObject(answer.text)
                return (answer.status, object["error"] as? String, object["reason"] as? String)
            }
            let token = Self.startToken
            // Three sources are configured: which story is the activity's?
            let (noSource, noSourceCode, _) = try await put(#"{"update-token": "\#(token)"}"#)
            #expect(noSource == 422 && noSourceCode == "source-required")
            let (bySharedScenario, sharedCode, _) = try await put(
                #"{"update-token": "\#(token)", "scenario": "delivery"}"#)
            #expect(bySharedScenario == 422 && sharedCode == "source-required")
            let (unknownSource, unknownCode, _) = try await put(#"{"update-token": "\#(token)", "source": "lyft"}"#)
            #expect(unknownSource == 422 && unknownCode == "unknown-source")
            let (mismatch, mismatchCode, _) = try await put(
                #"{"update-token": "\#(token)", "source": "uber", "scenario": "football.yaml"}"#)
            #expect(mismatch == 422 && mismatchCode == "scenario-mismatch")
            let (noTarget, noTargetCode, _) = try await put(#"{"source": "uber"}"#)
            #expect(noTarget == 422 && noTargetCode == "no-target")
            let (badHex, badHexCode, badHexReason) = try await put(#"{"update-token": "xyz", "source": "uber"}"#)
            #expect(badHex == 400 && badHexCode == "bad-field")
            #expect(badHexReason == "update-token must be the token's hex digits (an even number, 16 to 400)")
            let (typo, typoCode, typoReason) = try await put(#"{"update_token": "\#(token)", "source": "uber"}"#)
            #expect(
                typo == 400 && typoCode == "unknown-field"
                    && typoReason?.hasPrefix("unknown field(s) 'update_token'") == true)
            let (notJSON, notJSONCode, _) = try await put("update-token=1")
            #expect(notJSON == 400 && notJSONCode == "bad-json")
            let (channel, _, _) = try await put(
                #"{"channel": "dHN0LXNyY2gtY2hubA==", "source": "uber", "scenario": "delivery.yaml"}"#)
            #expect(channel == 201)
            #expect(try await bridge.store.activity("D-2")?.channelID == "dHN0LXNyY2gtY2hubA==")

            // A key with a slash travels percent-encoded.
            let (slashed, _, _) = try await put(#"{"update-token": "\#(token)", "source": "orders"}"#, key: "order%2F7")
            #expect(slashed == 201)
            #expect(try await bridge.store.activity("order/7")?.source == "orders")
            #expect(bridge.wakes.count == 2)
        }
    }
}
