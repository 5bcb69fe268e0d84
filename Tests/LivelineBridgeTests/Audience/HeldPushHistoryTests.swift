import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import Logging
import Testing
@testable import LivelineBridge

/// A push held while its app is halted (`AnswerPolicy`'s stop: APNs refused the setup) is in
/// the delivery history like any other outcome: the outbox's push as a `held` entry, once while
/// it waits; a fan-out's followers counted `held`, each saying so in its own view; and what
/// they were sent once APNs takes the setup again. Against a real mock APNs over TLS that
/// refuses the topic, on both stores, in virtual time.
@Suite struct HeldPushHistoryTests {
    /// Long enough in real time that no probe goes by itself during a test (sending resumes
    /// with ``APNsHalts/reset()``, as new credentials, SIGHUP, resume it), and short enough in
    /// virtual time that two of it pass before the pushes' stale date (10 minutes).
    static let probeInterval: Duration = .seconds(240)
    /// Seconds past the next probe's time (which counts from the answer's arrival).
    static let later = 246.0
    static let refusal = FaultPlan(errors: [.init(error: APNsError(status: 400, reason: "TopicDisallowed"), rate: 1)])
    static let logger = Logger(label: "liveline.tests.held", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The outbox's and the fan-out's senders through `bridge`'s client, sharing halts that
    /// probe every ``probeInterval``.
    static func senders(_ bridge: BridgeHarness) -> (halts: APNsHalts, outbox: OutboxSender, fanOut: FanOutSender) {
        let halts = APNsHalts(probeInterval: probeInterval, logger: logger)
        let clients = APNsClients(bridge.client)
        let retry = RetryPolicy(base: .seconds(1), cap: .seconds(4), maxAttempts: 3)
        return (
            halts,
            OutboxSender(
                store: bridge.store, clients: clients, halts: halts,
                configuration: .init(instance: "test", retry: retry), logger: logger),
            FanOutSender(
                store: bridge.store, clients: clients, halts: halts,
                configuration: .init(instance: "test", retry: retry), logger: logger)
        )
    }

    @Test(arguments: StoreKind.allCases)
    func aHeldPushIsOneEntryWhileItWaitsAndItsDeliveryFollows(_ kind: StoreKind) async throws {
        try await PushHistoryTests.withServer(kind) { bridge, base in
            let (halts, sender, _) = Self.senders(bridge)
            let token = BridgeHarness.token(21)
            try await bridge.register("D-1", updateToken: token)
            bridge.mock.setFaults(Self.refusal)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            let sentAt = bridge.now
            #expect(try await sender.send(now: bridge.now).held == 1, "APNs refused the setup: the push waits")

            var records = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 10)
            #expect(records.map(\.outcome) == [.held])
            let held = try #require(records.first)
            #expect(held.status == 400 && held.apnsReason == "TopicDisallowed" && held.instances == ["test"])
            #expect(held.sentAt == sentAt && held.answeredAt != nil && held.attempt == 1)
            #expect(held.error?.contains("halted") == true, "\(held.error ?? "")")

            // Due again at the next probe, and held again without being sent: no second entry.
            bridge.advance(seconds: Self.later)
            #expect(try await sender.send(now: bridge.now).held == 1)
            #expect(bridge.mock.pushes(token: token).count == 1, "the held push was not sent again")
            records = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 10)
            #expect(records == [held])

            // Over HTTP and in the operator's listing.
            let page = try await PushHistoryTests.get("\(base)/v1/activities/D-1/pushes")
            let entry = try #require((page.json["pushes"] as? [[String: Any]])?.first)
            #expect(entry["outcome"] as? String == "held" && entry["status"] as? Int == 400)
            #expect(entry["apns-reason"] as? String == "TopicDisallowed")
            #expect((entry["error"] as? String)?.contains("halted") == true)
            #expect(PushHistoryText.lines(records).first?.contains("held 400 TopicDisallowed") == true)

            // The setup is fixed and the credentials read again: the probe is the held push itself,
            // delivered on the same attempt (a hold does not count).
            bridge.mock.setFaults(.none)
            halts.reset()
            bridge.advance(seconds: Self.later)
            #expect(try await sender.send(now: bridge.now).sent == 1)
            records = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 10)
            #expect(records.map(\.outcome) == [.delivered, .held])
            #expect(records.first?.status == 200 && records.first?.attempt == 1)
            #expect(bridge.shown(token)["courierName"]?.stringValue == "Priya")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aFanOutCountsItsHeldFollowersAndEachSaysItIsHeldUntilItIsSent(_ kind: StoreKind) async throws {
        try await PushHistoryTests.withServer(kind) { bridge, base in
            let (halts, _, fanOut) = Self.senders(bridge)
            let followers = try await FanOutTests.audience(bridge, followers: 3)
            bridge.mock.setFaults(Self.refusal)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            let pass = try await fanOut.send(now: bridge.now)
            #expect(pass.held == 3 && pass.sent == 0 && pass.failed == 0, "\(pass)")

            let entry = try #require(
                try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 10).first)
            #expect(entry.fanOut?.sent == 0 && entry.fanOut?.failed == 0 && entry.fanOut?.held == 3)
            #expect(entry.fanOut?.failures == [], "a hold is no failure")
            let page = try await PushHistoryTests.get("\(base)/v1/activities/D-1/pushes")
            let tally = try #require((page.json["pushes"] as? [[String: Any]])?.first?["fan-out"] as? [String: Any])
            #expect(tally["held"] as? Int == 3 && tally["failed"] as? Int == 0)
            #expect(PushHistoryText.lines([entry]).first?.contains("0 failed, 3 held") == true)

            // Each follower waits for the next probe, and says why.
            let last = try #require(try await bridge.store.followerLastPush(device: "device-2", activityKey: "D-1"))
            guard case .held(let error, let until) = last.outcome else {
                Issue.record("device-2: \(last.outcome)")
                return
            }
            #expect(error?.contains("halted") == true, "\(error ?? "")")
            #expect(until >= bridge.now + Self.probeInterval.millis)
            #expect(last.push.id == entry.id)
            let view = try await PushHistoryTests.get("\(base)/v1/activities/D-1/followers/device-2")
            let shown = try #require(view.json["last-push"] as? [String: Any])
            #expect(shown["delivery"] as? String == "held" && shown["held-until"] is String)
            #expect((shown["delivery-error"] as? String)?.contains("halted") == true)

            // Sending resumes: the held followers are sent the push, and say it was delivered.
            bridge.mock.setFaults(.none)
            halts.reset()
            bridge.advance(seconds: Self.later)
            var sent = 0
            for _ in 0..<5 where sent < 3 { sent += try await fanOut.send(now: bridge.now).sent }
            #expect(sent == 3)
            for follower in followers {
                let after = try await bridge.store.followerLastPush(device: follower.device, activityKey: "D-1")
                #expect(after?.outcome == .delivered, "\(follower.device): \(String(describing: after?.outcome))")
                #expect(bridge.shown(try #require(follower.updateToken))["courierName"]?.stringValue == "Priya")
            }
        }
    }
}
