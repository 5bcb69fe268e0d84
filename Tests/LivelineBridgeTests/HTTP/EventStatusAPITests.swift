import Foundation
import HTTPTypes
import Liveline
import Testing
@testable import LivelineBridge

/// `GET /v1/events/{source}/{event}` and ``WebhookFollower`` on the ready-made Stripe source,
/// served for real and dispatched in virtual time: an applied event with its push, APNs'
/// answer and the device; a duplicate; a late event superseded; one for an activity nobody
/// registered; refusals.
@Suite struct EventStatusAPITests {
    static func sample(_ name: String) throws -> String {
        try String(contentsOfFile: "\(ReadyMadeBridge.directory)/stripe/\(name)", encoding: .utf8)
    }

    func follower(_ bridge: ReadyMadeBridge) -> WebhookFollower {
        WebhookFollower(
            base: "http://127.0.0.1:\(bridge.port)", apiKey: "demo-key", timeout: .seconds(5),
            interval: .milliseconds(20))
    }

    @Test func anAppliedEventShowsItsPushAPNsAnswerAndWhatTheDeviceShows() async throws {
        try await ReadyMadeBridge.with("sources/stripe.yaml") { bridge in
            try await bridge.register("58213", token: BridgeHarness.token(70), source: "stripe")
            let answer = try await bridge.send(
                "stripe", body: Array(try Self.sample("03-payment-intent-succeeded.json").utf8))
            #expect(answer.status == 202)
            let sent = try #require(WebhookFollower.event(inAnswer: answer.body))
            #expect(sent.activityKey == "58213" && sent.status == "stored")
            try await bridge.harness.settle()

            let trace = try await follower(bridge).follow(source: "stripe", eventID: sent.event)
            #expect(trace.conclusion == .answered)
            #expect(trace.state == "applied" && trace.activityKey == "58213")
            let lines = trace.lines
            #expect(
                lines.first == "stored     event \(sent.event) (payment_intent.succeeded) of stripe → activity 58213")
            #expect(
                lines.contains {
                    $0.hasPrefix("push       update p5 · coalesced 2 beats, last event payment_intent.succeeded · ")
                        && $0.contains(#""status":"preparing""#)
                }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("APNs       200 at ") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("shows      active · {\"status\":\"preparing\"") }, "\(lines)")

            // The same webhook again: a duplicate, whose story is the first one's.
            let again = try await bridge.send(
                "stripe", body: Array(try Self.sample("03-payment-intent-succeeded.json").utf8))
            let repeated = try #require(WebhookFollower.event(inAnswer: again.body))
            #expect(again.status == 200 && repeated.status == "duplicate")
            let duplicate = try await follower(bridge).follow(
                source: "stripe", eventID: repeated.event, received: repeated.status)
            #expect(duplicate.lines.first?.hasPrefix("duplicate  event \(sent.event)") == true)
            #expect(duplicate.conclusion == .answered)

            // An older event after a newer one: kept, not applied, and why.
            let late = try await bridge.send(
                "stripe", body: Array(try Self.sample("02-payment-intent-processing.json").utf8))
            try await bridge.harness.settle()
            let lateEvent = try #require(WebhookFollower.event(inAnswer: late.body)).event
            let superseded = try await follower(bridge).follow(source: "stripe", eventID: lateEvent)
            guard case .superseded(let reason) = superseded.conclusion else {
                Issue.record("\(superseded.conclusion)")
                return
            }
            #expect(reason.hasPrefix("older than an event already applied (\(sent.event))"), "\(reason)")
            #expect(superseded.lines.contains { $0.hasPrefix("superseded kept, not applied: older than") })
        }
    }

    @Test func anEventForAnActivityNobodyRegisteredSaysItWaits() async throws {
        try await ReadyMadeBridge.with("sources/stripe.yaml") { bridge in
            let body = try Self.sample("03-payment-intent-succeeded.json")
                .replacingOccurrences(of: "58213", with: "77001").replacingOccurrences(of: "evt_3Qk", with: "evt_9Zz")
            let answer = try await bridge.send("stripe", body: Array(body.utf8))
            let sent = try #require(WebhookFollower.event(inAnswer: answer.body))
            try await bridge.harness.settle()
            let trace = try await follower(bridge).follow(source: "stripe", eventID: sent.event)
            #expect(trace.conclusion == .notRegistered)
            #expect(
                trace.lines.last?.hasPrefix(
                    "waiting    no activity '77001' is registered, so the event waits in the inbox") == true,
                "\(trace.lines)")
        }
    }

    @Test func theEventsAPINeedsAKeyAndNamesAnUnknownEvent() async throws {
        try await ReadyMadeBridge.with("sources/stripe.yaml") { bridge in
            let url = "http://127.0.0.1:\(bridge.port)/v1/events/stripe/evt_nothing"
            let keyless = try await WebhookSender().send(to: url, method: .get, headers: HTTPFields(), body: [])
            #expect(keyless.status == 401)
            var headers = HTTPFields()
            headers[.authorization] = "Bearer demo-key"
            let unknown = try await WebhookSender().send(to: url, method: .get, headers: headers, body: [])
            #expect(unknown.status == 404)
            #expect(
                unknown.text.contains(#""error":"unknown-event""#)
                    && unknown.text.contains("no event 'evt_nothing' of source 'stripe' is stored"), "\(unknown.text)")
            await #expect(throws: WebhookSendError.self) {
                _ = try await follower(bridge).follow(source: "stripe", eventID: "evt_nothing")
            }
        }
    }
}
