import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// Webhooks over real HTTP on loopback, mostly sent with curl, against the example
/// configuration's senders (Uber Direct's hex HMAC, DoorDash's Authorization value, a Standard
/// Webhooks sender).
@Suite struct WebhookIngestTests {
    static let uber = """
        {"id": "evt_1", "kind": "event.delivery_status", "status": "pickup_complete", "created": 1795437000, \
        "delivery_id": "del_9", "data": {"dropoff_eta": "2026-11-23T13:40:00+01:00"}}
        """
    static let doorDash =
        #"{"event_name": "DASHER_PICKED_UP", "external_delivery_id": "D-1", "dropoff_time_estimated": "2026-11-23T13:30:00Z"}"#
    static let note =
        #"{"type": "order.note", "data": {"order_id": 58213, "sequence": 7, "note": "Leave it with the concierge"}}"#

    static let doorDashAuth = fields(["Authorization": "Bearer dd-demo", "Content-Type": "application/json"])

    @Test func aSignedWebhookIsStoredDurablyBeforeTheAnswerAndWakesTheDispatcher() async throws {
        try await RunningBridge.with { bridge in
            let answer = try await Curl.run(
                "\(bridge.base)/v1/webhooks/uber", Curl.headers(try bridge.signed("uber", Self.uber)),
                body: bytes(Self.uber))
            #expect(answer.status == 202)
            #expect(answer.body == #"{"status":"stored","event":"evt_1","activity-key":"del_9","activity":"del_9"}"#)
            #expect(answer.headers["content-type"] == "application/json")
            #expect(bridge.wakes.count == 1)

            // The answer came after the commit: the event is in the store, as it was sent.
            #expect(try await bridge.store.pendingEvents(for: "del_9") == 1)
            let claimed = try await bridge.store.claimNextEvents(
                limit: 5, instance: "test", lease: .seconds(30), now: BridgeClock.now())
            let event = try #require(claimed.first?.events.first?.event)
            #expect(event.source == "uber" && event.eventID == "evt_1" && event.eventType == "event.delivery_status")
            #expect(event.body == bytes(Self.uber))
            #expect(event.orderKey == 1_795_437_000_000)
            #expect(event.headers == ["content-type": "application/json"])
        }
    }

    @Test func aStandardWebhookKeepsItsIdHeaderButNeverItsSignature() async throws {
        try await RunningBridge.with { bridge in
            let headers = try bridge.signed("orders", Self.note, id: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W")
            let answer = try await Curl.run(
                "\(bridge.base)/v1/webhooks/orders", Curl.headers(headers), body: bytes(Self.note))
            #expect(answer.status == 202, "\(answer.body)")
            let claimed = try await bridge.store.claimNextEvents(
                limit: 5, instance: "test", lease: .seconds(30), now: BridgeClock.now())
            let event = try #require(claimed.first?.events.first?.event)
            #expect(
                event.eventID == "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W" && event.activityKey == "58213"
                    && event.orderKey == 7)
            #expect(
                event.headers == ["content-type": "application/json", "webhook-id": "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"])

            // The mapper reads the stored event exactly as it read the request.
            let again = try EventMapper(source: try bridge.source("orders")).map(
                body: event.body, headers: fields(["webhook-id": event.headers["webhook-id"] ?? ""]))
            #expect(again.eventID == event.eventID)
        }
    }

    @Test func aRepeatIsAcknowledgedAsADuplicateWithoutStoringOrWaking() async throws {
        try await RunningBridge.with { bridge in
            // DoorDash has no event id: the body's hash is its identity.
            let first = try await Curl.run(
                "\(bridge.base)/v1/webhooks/doordash", Curl.headers(Self.doorDashAuth), body: bytes(Self.doorDash))
            #expect(first.status == 202)
            let repeated = try await Curl.run(
                "\(bridge.base)/v1/webhooks/doordash", Curl.headers(Self.doorDashAuth), body: bytes(Self.doorDash))
            #expect(repeated.status == 200)
            #expect(try jsonObject(repeated.body)["status"] as? String == "duplicate")

            // Uber has one: the same id with other bytes is the same event.
            let sent = try await bridge.post("uber", Self.uber, headers: try bridge.signed("uber", Self.uber))
            #expect(sent.status == 202)
            let reformatted = Self.uber.replacingOccurrences(of: ", ", with: ",")
            let retry = try await bridge.post("uber", reformatted, headers: try bridge.signed("uber", reformatted))
            #expect(retry.status == 200)
            #expect(
                retry.text == #"{"status":"duplicate","event":"evt_1","activity-key":"del_9","activity":"del_9"}"#
                    + "\n")

            #expect(bridge.wakes.count == 2)
            #expect(try await bridge.store.counts().pendingEvents == 2)
        }
    }

    @Test func anEventTypeNoRuleNamesIsStoredAndAcknowledged() async throws {
        try await RunningBridge.with { bridge in
            let body = #"{"event_name": "DASHER_ENROUTE_TO_PICKUP", "external_delivery_id": "D-1"}"#
            let answer = try await Curl.run(
                "\(bridge.base)/v1/webhooks/doordash", Curl.headers(Self.doorDashAuth), body: bytes(body))
            #expect(answer.status == 202)
            #expect(try jsonObject(answer.body)["ignored"] as? Bool == true)
            let claimed = try await bridge.store.claimNextEvents(
                limit: 5, instance: "test", lease: .seconds(30), now: BridgeClock.now())
            // Ordered by status rank, but this status has none: stored below every real key.
            #expect(claimed.first?.events.first?.event.orderKey == 0)
        }
    }

    @Test func refusalsSayWhatIsWrong() async throws {
        try await RunningBridge.with { bridge in
            func post(_ source: String, _ headers: HTTPFields, _ body: String) async throws -> (Int, [String: Any]) {
                let answer = try await Curl.run(
                    "\(bridge.base)/v1/webhooks/\(source)", Curl.headers(headers), body: bytes(body))
                return (answer.status, try jsonObject(answer.body))
            }
            var headers = try bridge.signed("uber", Self.uber)
            headers[HTTPField.Name("x-uber-signature")!] = String(repeating: "ab", count: 32)
            let (badSignature, badSignatureBody) = try await post("uber", headers, Self.uber)
            #expect(badSignature == 401)
            #expect(badSignatureBody["error"] as? String == "bad-signature")
            #expect(badSignatureBody["reason"] as? String == "no signature matches the body")

            let (missing, missingBody) = try await post("uber", fields(["Content-Type": "application/json"]), Self.uber)
            #expect(missing == 400 && missingBody["reason"] as? String == "missing header x-uber-signature")

            let (wrongSecret, wrongSecretBody) = try await post(
                "doordash", fields(["Authorization": "Bearer not-it", "Content-Type": "application/json"]),
                Self.doorDash)
            #expect(wrongSecret == 401 && wrongSecretBody["error"] as? String == "bad-credentials")

            let (unknown, unknownBody) = try await post("lyft", Self.doorDashAuth, Self.doorDash)
            #expect(unknown == 404 && unknownBody["error"] as? String == "unknown-source")
            #expect((unknownBody["reason"] as? String)?.contains("doordash, orders, uber") == true)

            let (text, textBody) = try await post(
                "doordash", fields(["Authorization": "Bearer dd-demo", "Content-Type": "text/plain"]), Self.doorDash)
            #expect(text == 415 && textBody["error"] as? String == "unsupported-media-type")

            let notJSON = "status=delivered"
            let (badJSON, badJSONBody) = try await post("uber", try bridge.signed("uber", notJSON), notJSON)
            #expect(badJSON == 400 && badJSONBody["error"] as? String == "bad-json")

            let noKey = #"{"id": "evt_2", "kind": "event.delivery_status", "status": "x", "created": 1}"#
            let (unmappable, unmappableBody) = try await post("uber", try bridge.signed("uber", noKey), noKey)
            #expect(
                unmappable == 422 && unmappableBody["reason"] as? String == "body has no /delivery_id (activity-key)")

            let strange = #"{"type": "order.refund", "data": {"order_id": 1, "sequence": 1}}"#
            let (rejected, rejectedBody) = try await post("orders", try bridge.signed("orders", strange), strange)
            #expect(
                rejected == 422
                    && (rejectedBody["reason"] as? String)?.hasPrefix("event type 'order.refund' has no rule") == true)

            #expect(try await bridge.store.counts().pendingEvents == 0)
            #expect(bridge.wakes.count == 0)
        }
    }

    /// A stream source takes no webhooks: its name answers 404 and says why.
    @Test func aStreamSourceTakesNoWebhooks() async throws {
        try await RunningBridge.with(configure: { configuration in
            var stream = try #require(configuration.source(named: "orders"))
            stream.name = "feed"
            stream.scheme = .none
            stream.stream = StreamSettings(url: try FeedURL(parsing: "http://127.0.0.1:9/stream"))
            configuration.sources.append(stream)
        }) { bridge in
            let answer = try await bridge.post("feed", "{}", headers: fields(["Content-Type": "application/json"]))
            #expect(answer.status == 404)
            #expect(
                try jsonObject(answer.text)["reason"] as? String == "source 'feed' reads a stream; it takes no webhooks"
            )
            #expect(try await bridge.store.counts().pendingEvents == 0)
        }
    }

    @Test func aBodyOverTheLimitIsRefusedWhetherDeclaredOrChunked() async throws {
        try await RunningBridge.with { bridge in
            let big =
                #"{"event_name": "DASHER_PICKED_UP", "external_delivery_id": "D-1", "dropoff_time_estimated": "2026-11-23T13:30:00Z", "pad": ""#
                + String(repeating: "x", count: RunningBridge.bodyLimit) + #""}"#
            let declared = try await Curl.run(
                "\(bridge.base)/v1/webhooks/doordash", Curl.headers(Self.doorDashAuth), body: bytes(big))
            #expect(declared.status == 413)
            #expect(
                try jsonObject(declared.body)["reason"] as? String
                    == "the body is larger than this bridge's limit of 2048 bytes")

            let chunked = try await Curl.run(
                "\(bridge.base)/v1/webhooks/doordash",
                Curl.headers(Self.doorDashAuth) + ["-H", "Transfer-Encoding: chunked"], body: bytes(big))
            #expect(chunked.status == 413)

            let ours = try await bridge.post("doordash", big, headers: Self.doorDashAuth)
            #expect(ours.status == 413)

            // A body of exactly the limit is fine.
            let exact = String(big.prefix(RunningBridge.bodyLimit - 2)) + #""}"#
            #expect(exact.utf8.count == RunningBridge.bodyLimit)
            let fits = try await bridge.post("doordash", exact, headers: Self.doorDashAuth)
            #expect(fits.status == 202, "\(fits.text)")
            #expect(try await bridge.store.counts().pendingEvents == 1)
        }
    }

    @Test func webhooksAreCountedAndNothingSecretIsLogged() async throws {
        try await RunningBridge.with { bridge in
            _ = try await bridge.post("uber", Self.uber, headers: try bridge.signed("uber", Self.uber))
            _ = try await bridge.post("uber", Self.uber, headers: try bridge.signed("uber", Self.uber))
            _ = try await bridge.post(
                "doordash", Self.doorDash, headers: fields(["Authorization": "Bearer not-the-secret-xyz"]))
            _ = try await bridge.post("nobody", Self.doorDash, headers: Self.doorDashAuth)
            let signature = try bridge.signed("orders", Self.note)
            _ = try await bridge.post("orders", Self.note, headers: signature)

            let metrics = try await Curl.run("\(bridge.base)/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"] == BridgeMetrics.contentType)
            for line in [
                #"liveline_webhooks_total{source="uber",result="stored"} 1"#,
                #"liveline_webhooks_total{source="uber",result="duplicate"} 1"#,
                #"liveline_webhooks_total{source="doordash",result="unauthorized"} 1"#,
                #"liveline_webhooks_total{source="",result="unknown_source"} 1"#,
                #"liveline_webhooks_total{source="orders",result="stored"} 1"#,
                "liveline_inbox_pending 2.0",
            ] {
                #expect(metrics.body.contains(line), "no \(line) in\n\(metrics.body)")
            }

            let logs = bridge.logs.lines.joined(separator: "\n")
            #expect(logs.contains("webhook stored"))
            let signatureValue = try #require(signature[HTTPField.Name("webhook-signature")!])
            for secret in [
                "dd-demo", "uber-demo", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", signatureValue, "concierge",
                "pickup_complete", "not-the-secret-xyz",
            ] {
                #expect(!logs.contains(secret), "the log shows \(secret)")
            }
        }
    }
}
