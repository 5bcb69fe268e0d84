import Foundation
import Liveline
import LivelineAPNs
import LivelineFCM
import LivelineMockFCM
import Testing
@testable import LivelineBridge

/// A key's own activity on an Android phone: registered with an `fcm-token`, its story's pushes
/// go through a real mock FCM over TLS on loopback, on both stores, in virtual time.
@Suite struct AndroidActivityTests {
    static let phone = "dXk1:APA91bOwnPhone1"
    static let newPhone = "dXk2:APA91bOwnPhone2"

    /// Registers `D-1` as an Android phone with `token`.
    static func register(_ bridge: BridgeHarness, token: String = phone) async throws {
        _ = try await bridge.store.registerActivity(
            ActivityRegistration(activityKey: "D-1", targets: ActivityTargets(fcmToken: token), source: "doordash"),
            now: bridge.now)
    }

    /// What the phone with `token` shows for `D-1`.
    static func shown(_ bridge: BridgeHarness, token: String = phone) throws -> PhoneNotification? {
        let recipient =
            switch try #require(FCMTarget(parsing: token)) {
            case .token(let value): FCMRecipient.token(value)
            case .fid(let value): FCMRecipient.fid(value)
            }
        return try #require(bridge.mockFCM).phone(recipient)?.notifications["D-1"]
    }

    /// The `event` of each message the mock accepted, in arrival order.
    static func events(_ bridge: BridgeHarness) throws -> [String] {
        try #require(bridge.mockFCM).messages().compactMap { $0.message.data[LiveUpdateKeys.event] }
    }

    /// Checks that the phone shows nothing until `seconds` have passed, then the first update;
    /// the key's history then.
    static func shownOnlyAfter(seconds: Double, _ bridge: BridgeHarness) async throws -> [PushRecord] {
        bridge.advance(seconds: seconds - 1)
        try await bridge.settle()
        #expect(try shown(bridge) == nil)
        bridge.advance(seconds: 1)
        try await bridge.settle()
        #expect(try shown(bridge)?.content.text == "Priya is on her way to Bao House")
        return try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 5)
    }

    @Test(arguments: StoreKind.allCases)
    func anAndroidActivityIsSentItsStoryStartUpdatesAndEndThroughFCM(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            try await Self.register(bridge)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            let started = try #require(try Self.shown(bridge), "the phone shows nothing after the start")
            #expect(started.promoted && started.ongoing, "\(started)")
            #expect(started.content.text == "Priya is on her way to Bao House")

            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            try await bridge.settle()
            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_DROPPED_OFF"))
            try await bridge.settle()
            let ended = try #require(try Self.shown(bridge))
            #expect(!ended.ongoing && ended.removeAt != nil, "the end leaves a dismissible notification: \(ended)")
            let events = try Self.events(bridge)
            // The story's first push updates the Live Update its phone posts (its start is the app's).
            #expect(events == ["update", "update", "end"], "\(events)")
            // Nothing went to APNs, and every attempt is in the history as Android's.
            #expect(bridge.mock.pushes(token: BridgeHarness.token(1)).isEmpty)
            let history = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 20)
            #expect(history.count == events.count)
            #expect(history.allSatisfy { $0.platform == .android && $0.outcome == .delivered && $0.status == 200 })
            #expect(
                history.allSatisfy { $0.apnsID?.hasPrefix("projects/\(BridgeHarness.fcmProject)/messages/") == true })
            // `liveline bridge history` names the platform and FCM's message.
            let line = try #require(PushHistoryText.lines(history).first)
            #expect(line.contains("delivered  android (FCM) 200") && line.contains("fcm projects/"), "\(line)")
            let entry = PushHistoryView.entry(try #require(history.first))
            #expect(entry["platform"] == .string("android") && entry["apns-id"] == nil)
            guard case .string(let name)? = entry["fcm-message"] else {
                Issue.record("no fcm-message in \(entry)")
                return
            }
            #expect(name.hasPrefix("projects/"))
            let activity = try #require(try await bridge.store.activity("D-1"))
            #expect(activity.platform == .android && activity.lastPush?.status == 200)
            #expect(try await bridge.store.queuedPushes(for: "D-1") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anUnregisteredPhoneIsForgottenAndTheActivityWaitsForItsNewToken(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            try await Self.register(bridge)
            try #require(bridge.mockFCM).inject(.unregistered, for: .token(Self.phone))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            let forgotten = try #require(try await bridge.store.activity("D-1"), "the activity stays")
            #expect(forgotten.fcmToken == nil && forgotten.platform == .ios)
            #expect(forgotten.lastError?.contains("UNREGISTERED") == true, "\(forgotten.lastError ?? "")")
            #expect(try await bridge.store.deadLetters(limit: 10).count == 1)
            let gone = try #require(try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 5).first)
            #expect(gone.outcome == .tokenGone && gone.platform == .android && gone.apnsReason == "UNREGISTERED")
            #expect(gone.status == 404, "\(gone)")

            // Later pushes wait for a token; the new one is sent them, in order.
            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            try await bridge.settle()
            // As after an APNs update token gone: with no target the event waits, pending.
            #expect(try await bridge.store.pendingEvents(for: "D-1") == 1)
            #expect(try Self.shown(bridge) == nil)
            try await Self.register(bridge, token: Self.newPhone)
            try await bridge.settle()
            #expect(try await bridge.store.queuedPushes(for: "D-1") == 0)
            let shown = try #require(try Self.shown(bridge, token: Self.newPhone))
            #expect(shown.ongoing)
            let toNew = try #require(bridge.mockFCM).messages().filter { $0.message.recipient == .token(Self.newPhone) }
            #expect(toNew.map { $0.message.data[LiveUpdateKeys.event] } == ["update"], "\(toNew)")
            #expect(try await bridge.store.activity("D-1")?.lastError == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anUnavailableFCMBacksOffByRetryAfterThenDelivers(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            try await Self.register(bridge)
            try #require(bridge.mockFCM).inject(.unavailable(retryAfter: 5), for: .token(Self.phone))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            #expect(try Self.shown(bridge) == nil)
            let retrying = try #require(
                try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 5).first)
            #expect(
                retrying.outcome == .retrying && retrying.platform == .android && retrying.apnsReason == "UNAVAILABLE")
            #expect(try await bridge.store.queuedPushes(for: "D-1") == 1)
            // Its Retry-After: nothing before it, then the start.
            let history = try await Self.shownOnlyAfter(seconds: 5, bridge)
            #expect(history.map(\.outcome) == [.delivered, .retrying] && history.first?.attempt == 2)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRefusedSetupHoldsThePushAMinuteAndSaysWhy(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            try await Self.register(bridge)
            try #require(bridge.mockFCM).inject(.senderIDMismatch, for: .token(Self.phone))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            #expect(try Self.shown(bridge) == nil)
            let held = try #require(try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 5).first)
            #expect(held.outcome == .held && held.platform == .android && held.apnsReason == "SENDER_ID_MISMATCH")
            let activity = try #require(try await bridge.store.activity("D-1"))
            #expect(activity.fcmToken != nil, "a setup error keeps the token")
            #expect(activity.lastError?.contains("FCM refused the setup") == true, "\(activity.lastError ?? "")")
            #expect(try await bridge.store.queuedPushes(for: "D-1") == 1)
            // Held, not failing: the attempt is not counted, and it goes once the minute is over.
            let history = try await Self.shownOnlyAfter(seconds: 60, bridge)
            #expect(history.map(\.outcome) == [.delivered, .held] && history.first?.attempt == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aBridgeWithoutFCMHoldsAnAndroidKeysPushes(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            try await Self.register(bridge)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            #expect(try await bridge.store.queuedPushes(for: "D-1") == 1)
            #expect(try await bridge.store.deadLetters(limit: 5).isEmpty)
            #expect(try await bridge.store.activity("D-1")?.lastError?.contains("no FCM") == true)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anAndroidKeyWithIPhoneFollowersReachesBoth(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            try await Self.register(bridge)
            let follower = Follower(device: "iphone-1", updateToken: BridgeHarness.token(101))
            _ = try await bridge.store.putFollowers([follower], activityKey: "D-1", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            #expect(try Self.shown(bridge)?.content.text == "Priya is on her way to Bao House")
            #expect(bridge.shown(BridgeHarness.token(101))["courierName"]?.stringValue == "Priya")
            let history = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 5)
            #expect(history.filter { $0.fanOut == nil }.map(\.platform) == [.android])
            #expect(history.compactMap(\.fanOut).map(\.sent) == [1])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theMetricsCountTheKeysOwnPushesByPlatform(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            let metrics = BridgeMetrics()
            let sender = OutboxSender(
                store: bridge.store, clients: APNsClients(bridge.client, fcm: bridge.fcm),
                configuration: .init(instance: "metered"), observer: metrics)
            try await Self.register(bridge)
            try await bridge.register("D-2", updateToken: BridgeHarness.token(2))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED", delivery: "D-2"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            let report = try await sender.send(now: bridge.now)
            #expect(report.sent == 2, "\(report)")
            let text = String(decoding: metrics.exposition(), as: UTF8.self)
            for line in [
                #"liveline_pushes_total{platform="android",status="200",reason=""} 1"#,
                #"liveline_pushes_total{platform="ios",status="200",reason=""} 1"#,
            ] {
                #expect(text.contains(line), "\(line)\n\(text)")
            }
        }
    }

    @Test func anActivityIsOnePhoneAndItsFCMTokenIsChecked() throws {
        let sources = try loadExample().sources
        let android = try ActivityRegistrationRequest(
            parsing: Array(#"{"fcm-token": "fid:cXk1Installation", "source": "doordash"}"#.utf8))
        let registered = try android.registration(key: "D-1", existing: nil, sources: sources)
        #expect(registered.targets.fcmToken == "fid:cXk1Installation" && registered.targets.platform == .android)
        let both = try ActivityRegistrationRequest(
            parsing: Array(
                #"{"fcm-token": "dXk1:APA91b", "update-token": "\#(BridgeHarness.token(1))", "source": "doordash"}"#
                    .utf8))
        #expect(throws: BridgeHTTPError.self) { try both.registration(key: "D-1", existing: nil, sources: sources) }
        do {
            _ = try both.registration(key: "D-1", existing: nil, sources: sources)
        } catch {
            #expect(error.code == "two-platforms" && error.status == .unprocessableContent)
        }
        // A channel is an iPhone's too, kept from the registration before.
        let onChannel = RegisteredActivity(activityKey: "D-1", channelID: "dHN0", source: "doordash", updatedAt: 0)
        do {
            _ = try android.registration(key: "D-1", existing: onChannel, sources: sources)
            Issue.record("an FCM token beside a channel was taken")
        } catch {
            #expect(error.code == "two-platforms")
        }
        // An iPhone's fields set to null make way for the FCM token.
        let iPhone = RegisteredActivity(
            activityKey: "D-1", updateToken: BridgeHarness.token(1), source: "doordash", updatedAt: 0)
        let switched = try ActivityRegistrationRequest(
            parsing: Array(#"{"fcm-token": "dXk1:APA91b", "update-token": null}"#.utf8))
        #expect(try switched.registration(key: "D-1", existing: iPhone, sources: sources).targets.platform == .android)
        for bad in [
            #"{"fcm-token": ""}"#, #"{"fcm-token": "has space"}"#, #"{"fcm-token": 12}"#, #"{"fcm-token": "fid:"}"#,
        ] {
            #expect(throws: BridgeHTTPError.self, "\(bad)") {
                try ActivityRegistrationRequest(parsing: Array(bad.utf8))
            }
        }
    }
}
