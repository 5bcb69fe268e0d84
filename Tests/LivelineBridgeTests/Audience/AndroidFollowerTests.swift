import Foundation
import Liveline
import LivelineAPNs
import LivelineFCM
import LivelineMockAPNs
import LivelineMockFCM
import Testing
@testable import LivelineBridge

/// One audience, two platforms: a key's iPhones through a real mock APNs and its Android phones
/// through a real mock FCM, over loopback, on both stores, in virtual time.
@Suite struct AndroidFollowerTests {
    static func iPhone(_ n: Int) -> Follower {
        Follower(device: "iphone-\(n)", updateToken: BridgeHarness.token(100 + n))
    }

    static func android(_ n: Int, fid: Bool = false) -> Follower {
        Follower(device: "android-\(n)", fcmToken: fid ? "fid:cXk\(n)Installation" : "dXk\(n):APA91bToken\(n)")
    }

    /// What the FCM token names on the mock.
    static func recipient(_ follower: Follower) throws -> FCMRecipient {
        let token = try #require(follower.fcmToken)
        return switch try #require(FCMTarget(parsing: token)) {
        case .token(let value): FCMRecipient.token(value)
        case .fid(let value): FCMRecipient.fid(value)
        }
    }

    /// What `follower`'s phone shows for key `key`.
    static func shown(_ bridge: BridgeHarness, _ follower: Follower, key: String = "D-1") throws -> PhoneNotification? {
        let recipient = try recipient(follower)
        return try #require(bridge.mockFCM).phone(recipient)?.notifications[key]
    }

    /// The `timestamp` of each message the mock accepted for `follower`, in arrival order.
    static func timestamps(_ bridge: BridgeHarness, _ follower: Follower) throws -> [Int64] {
        let recipient = try recipient(follower)
        return try #require(bridge.mockFCM).messages().filter { $0.message.recipient == recipient }.compactMap {
            $0.message.data[LiveUpdateKeys.timestamp].flatMap { Int64($0) }
        }
    }

    static func audience(_ bridge: BridgeHarness, _ followers: [Follower]) async throws {
        _ = try await bridge.store.registerActivity(
            ActivityRegistration(activityKey: "D-1", targets: ActivityTargets(), source: "doordash"), now: bridge.now)
        _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
    }

    @Test(arguments: StoreKind.allCases)
    func oneGoalReachesIPhonesAndAndroidPhonesEachInOrder(_ kind: StoreKind) async throws {
        let stepwise = FanOutSender.Configuration(
            instance: "test", page: 2, ranges: 1,
            retry: RetryPolicy(base: .seconds(1), cap: .seconds(4), maxAttempts: 3))
        try await withBridge(kind, fanOut: stepwise, android: true) { bridge in
            let iPhones = (1...3).map(Self.iPhone)
            let androids = [Self.android(1), Self.android(2, fid: true), Self.android(3)]
            try await Self.audience(
                bridge, [iPhones[0], androids[0], iPhones[1], androids[1], iPhones[2], androids[2]])
            let counts = try await bridge.store.followerCounts(activityKey: "D-1")
            #expect(counts.total == 6 && counts.updating == 6 && counts.android == 3)
            #expect(counts.byPlatform == [.ios: 3, .android: 3])
            #expect(counts.byEnvironment(default: .sandbox) == [.sandbox: 3])

            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DASHER_PICKED_UP", eta: "2027-01-15T18:40:00Z"))
            try await bridge.settle()

            for iPhone in iPhones {
                let token = try #require(iPhone.updateToken)
                #expect(bridge.shown(token)["status"]?.stringValue == "on-the-way")
                #expect(bridge.timestamps(token).count == 2)
            }
            let message = bridge.shown(try #require(iPhones[0].updateToken))["message"]?.stringValue
            for android in androids {
                let notification = try Self.shown(bridge, android)
                let shown = try #require(notification, "\(android.device) shows nothing")
                #expect(shown.content.text == message, "\(android.device): the same story as the iPhones'")
                #expect(shown.promoted && shown.ongoing, "\(android.device): \(shown)")
                let timestamps = try Self.timestamps(bridge, android)
                #expect(timestamps.count == 2 && timestamps == timestamps.sorted(), "\(android.device): \(timestamps)")
            }
            // The dashboard's watcher samples one phone of each platform.
            let watched = try await AudienceWatch(store: bridge.store).refresh(now: bridge.now)
            #expect(watched.first?.sample?.device == "iphone-1" && watched.first?.androidSample?.device == "android-1")
            let messages = try #require(bridge.mockFCM).messages()
            #expect(messages.allSatisfy { $0.message.collapseKey == "D-1" || $0.message.collapseKey == nil })
            #expect(messages.allSatisfy { $0.message.data[LiveUpdateKeys.activity] == "D-1" })
            // The delivery history: each fan-out's share per platform.
            let history = try await bridge.store.pushHistory(activityKey: "D-1", before: nil, limit: 10)
            let tallies = history.compactMap(\.fanOut)
            #expect(tallies.count == 2)
            for tally in tallies {
                #expect(tally.sent == 6 && tally.android == PushRecord.PlatformTally(sent: 3, failed: 0), "\(tally)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anUnregisteredAppInstanceIsForgottenAndSummedLikeAGoneAPNsToken(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            let gone = Self.android(2)
            try await Self.audience(bridge, [Self.iPhone(1), Self.android(1), gone])
            let goneRecipient = try Self.recipient(gone)
            try #require(bridge.mockFCM).inject(.unregistered, for: goneRecipient)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            #expect(try await bridge.store.follower(device: gone.device, activityKey: "D-1") == nil)
            let counts = try await bridge.store.followerCounts(activityKey: "D-1")
            #expect(counts.total == 2 && counts.android == 1)
            let failures = try await bridge.store.fanOutFailures(activityKey: "D-1", limit: 10)
            #expect(failures.map(\.reason) == ["FCM UNREGISTERED"] && failures.first?.count == 1, "\(failures)")
            #expect(try Self.shown(bridge, Self.android(1)) != nil)
            #expect(bridge.shown(try #require(Self.iPhone(1).updateToken))["courierName"]?.stringValue == "Priya")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anUnavailableFCMBacksOffThatPhoneAloneThenSendsItTheNewest(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            let slow = Self.android(1)
            try await Self.audience(bridge, [Self.iPhone(1), slow, Self.android(2)])
            let slowRecipient = try Self.recipient(slow)
            try #require(bridge.mockFCM).inject(.unavailable(retryAfter: 5), for: slowRecipient)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            #expect(try Self.shown(bridge, slow) == nil)
            #expect(try Self.shown(bridge, Self.android(2)) != nil)
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").retrying == 1)
            // Its Retry-After: nothing before it, then the newest message.
            bridge.advance(seconds: 4)
            try await bridge.settle()
            #expect(try Self.shown(bridge, slow) == nil)
            bridge.advance(seconds: 1)
            try await bridge.settle()
            let notification = try Self.shown(bridge, slow)
            let shown = try #require(notification)
            #expect(shown.content.text == "Priya is on her way to Bao House")
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").retrying == 0)
        }
    }

    /// The key's steps remember what its Android phones were last sent: a heartbeat in a later
    /// step changes nothing they show, so it goes at `NORMAL` priority, not `HIGH`.
    @Test(arguments: StoreKind.allCases)
    func aLaterStepThatChangesNothingShownGoesAtNormalPriority(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            let phone = Self.android(1)
            try await Self.audience(bridge, [phone])
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            // The stale date is 10 minutes on; the heartbeat before it is a step of its own.
            try await bridge.run(for: 600, step: 60)
            let recipient = try Self.recipient(phone)
            let messages = try #require(bridge.mockFCM).messages().filter { $0.message.recipient == recipient }
            let priorities = messages.map(\.message.priority)
            #expect(priorities.count >= 2, "a heartbeat followed the update: \(priorities)")
            #expect(priorities.first == .high, "the courier's assignment changes the text and progress")
            #expect(priorities.dropFirst().allSatisfy { $0 == .normal }, "\(priorities)")
            #expect(try Self.shown(bridge, phone)?.content.text == "Priya is on her way to Bao House")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anAndroidPhoneJoiningLateCatchesUpWithTheNewestMessage(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            try await Self.audience(bridge, [Self.iPhone(1)])
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            bridge.advance(seconds: 20)
            let late = Self.android(7, fid: true)
            #expect(try await bridge.store.putFollowers([late], activityKey: "D-1", now: bridge.now) == [.created])
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").catchingUp == 1)
            try await bridge.settle()
            #expect(try Self.shown(bridge, late)?.content.text == "Priya is on her way to Bao House")
            #expect(try Self.timestamps(bridge, late).count == 1)
            #expect(try await bridge.store.followerCounts(activityKey: "D-1").catchingUp == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theMetricsCountPushesFailuresAndFollowersByPlatform(_ kind: StoreKind) async throws {
        try await withBridge(kind, android: true) { bridge in
            let metrics = BridgeMetrics()
            let sender = FanOutSender(
                store: bridge.store, clients: APNsClients(bridge.client, fcm: bridge.fcm),
                halts: APNsHalts(logger: .init(label: "test")), configuration: .init(instance: "metered"),
                observer: metrics)
            let gone = Self.android(3)
            try await Self.audience(bridge, [Self.iPhone(1), Self.iPhone(2), Self.android(1), Self.android(2), gone])
            let goneRecipient = try Self.recipient(gone)
            try #require(bridge.mockFCM).inject(.unregistered, for: goneRecipient)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            let report = try await sender.send(now: bridge.now)
            #expect(report.sent == 4 && report.failed == 1 && report.pruned == 1)
            metrics.setFollowers(try await bridge.store.allFollowerCounts())
            let text = String(decoding: metrics.exposition(), as: UTF8.self)
            for line in [
                #"liveline_follower_pushes_total{platform="ios",outcome="sent"} 2"#,
                #"liveline_follower_pushes_total{platform="android",outcome="sent"} 2"#,
                #"liveline_follower_pushes_total{platform="android",outcome="failed"} 1"#,
                #"liveline_follower_push_failures_total{platform="android",reason="FCM UNREGISTERED"} 1"#,
                #"liveline_followers_by_platform{platform="ios"} 2.0"#,
                #"liveline_followers_by_platform{platform="android"} 2.0"#,
                #"liveline_fanout_pushes_total{key="D-1"} 5"#,
            ] {
                #expect(text.contains(line), "\(line)\n\(text)")
            }
        }
    }

    @Test func aFollowerIsOnePhoneAndItsFCMTokenIsChecked() throws {
        let android = try FollowerRequest(parsing: Array(#"{"fcm-token": "fid:cXk1Installation"}"#.utf8))
        #expect(try android.follower(device: "a", existing: nil).fcmToken == "fid:cXk1Installation")
        #expect(try android.follower(device: "a", existing: nil).platform == .android)
        let both = try FollowerRequest(
            parsing: Array(#"{"fcm-token": "dXk1:APA91b", "update-token": "\#(BridgeHarness.token(1))"}"#.utf8))
        #expect(throws: BridgeHTTPError.self) { try both.follower(device: "a", existing: nil) }
        do {
            _ = try both.follower(device: "a", existing: nil)
        } catch {
            #expect(error.code == "two-platforms")
        }
        // An iPhone's tokens set to null make way for the FCM token.
        let switched = try FollowerRequest(
            parsing: Array(#"{"fcm-token": "dXk1:APA91b", "update-token": null}"#.utf8))
        let existing = Self.iPhone(1)
        #expect(try switched.follower(device: existing.device, existing: existing).platform == .android)
        for bad in [
            #"{"fcm-token": ""}"#, #"{"fcm-token": "has space"}"#, #"{"fcm-token": 12}"#, #"{"fcm-token": "fid:"}"#,
        ] {
            #expect(throws: BridgeHTTPError.self, "\(bad)") { try FollowerRequest(parsing: Array(bad.utf8)) }
        }
    }
}
