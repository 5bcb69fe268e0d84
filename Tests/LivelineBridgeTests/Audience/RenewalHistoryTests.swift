import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTestSupport
import Logging
import Testing
@testable import LivelineBridge

/// Renewals in the delivery history: the successor's start and the predecessor's end, to the
/// key's own activity (an entry per attempt, with APNs' answer) and to its followers (one entry
/// per push with counts and failures linking to the devices), read over HTTP, from a follower's
/// view and with `liveline bridge history`; held once while the app is halted; pruned by
/// retention and not written when the history is off. On both stores, the mock APNs over TLS,
/// the 20-hour flight of Scenarios/overnight-flight.yaml in virtual time.
@Suite(.serialized) struct RenewalHistoryTests {
    typealias Bridge = BridgeRenewalTests.Bridge

    /// The key and two followers started and their apps' update tokens reported.
    static func started(_ bridge: Bridge, base: Int) async throws -> [(device: String, start: String)] {
        let harness = bridge.harness
        let keyStart = BridgeHarness.token(base)
        let followers: [(device: String, start: String)] = [
            ("a", BridgeHarness.token(base + 1)), ("b", BridgeHarness.token(base + 2)),
        ]
        let put = try await bridge.call(.put, "LL-204", #"{"push-to-start-token": "\#(keyStart)", "source": "flight"}"#)
        #expect(put.status == 201)
        for (device, start) in followers {
            let joined = try await bridge.call(
                .put, "LL-204/followers/\(device)", #"{"push-to-start-token": "\#(start)"}"#)
            #expect(joined.status == 201)
        }
        try await harness.receive("flight", BridgeRenewalTests.event("flight.start", seq: 1))
        try await harness.settle()
        var reported: [String: String] = [:]
        #expect(
            try await BridgeRenewalTests.reportTokens(bridge, key: keyStart, followers: followers, reported: &reported)
                == 3)
        try await harness.settle()
        return [("", keyStart)] + followers
    }

    /// The store's location as `store:` in a configuration (PostgreSQL's with its password).
    static func storeText(_ location: StoreLocation) -> String {
        switch location {
        case .sqlite(let path):
            return "sqlite:\(path)"
        case .postgres(let postgres):
            let password = postgres.password.map {
                ":" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? $0)
            }
            return "postgres://\(postgres.user)\(password ?? "")@\(postgres.host):\(postgres.port)/\(postgres.database)"
                + (postgres.schema.map { "?schema=\($0)" } ?? "")
        }
    }

    /// `liveline bridge history KEY` on the store at `location`, as an operator runs it.
    static func bridgeHistory(_ location: StoreLocation, key: String) async throws -> Subprocess.Result {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-history-\(UUID().uuidString).yaml")
        let yaml = BridgeRenewalTests.yaml
            .replacingOccurrences(
                of: "scenario: overnight-flight.yaml", with: "scenario: \(scenariosDirectory)/overnight-flight.yaml"
            )
            .replacingOccurrences(
                of: "liveline-bridge: 1\n", with: "liveline-bridge: 1\nstore: \"\(storeText(location))\"\n")
        try yaml.write(to: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: config) }
        return try await Subprocess.run(
            ["bridge", "history", key, "--config", config.path], executable: try LivelineBinary.url().path)
    }

    @Test(arguments: StoreKind.allCases)
    func aRenewalIsInTheHistoryOverHTTPInAFollowersViewAndInBridgeHistory(_ kind: StoreKind) async throws {
        try await BridgeRenewalTests.withBridge(kind) { bridge in
            let harness = bridge.harness
            let devices = try await Self.started(bridge, base: 210)
            let keyStart = devices[0].start
            // Follower b's push-to-start token is gone by the renewal.
            harness.mock.setFaults(FaultPlan(unregisteredTokens: [devices[2].start]))
            let before = harness.now
            try await harness.run(for: 7 * 3600 + 40 * 60, step: 600)

            let records = try await harness.store.pushHistory(activityKey: "LL-204", before: nil, limit: 50)
            let renewal = records.filter { $0.renewal != nil }
            #expect(Set(renewal.compactMap(\.renewal)).count == 1, "one renewal: \(renewal.map(\.id))")
            // The key's own device: its successor's start and its predecessor's end, each with
            // APNs' answer, the instance and the times.
            let own = renewal.filter { $0.fanOut == nil }
            #expect(own.map(\.kind) == [.end, .start], "newest first")
            let start = try #require(own.last), end = try #require(own.first)
            #expect(start.reason.hasPrefix("renewal #1: successor starts"), "\(start.reason)")
            #expect(end.reason.hasPrefix("renewal #1: predecessor ends"), "\(end.reason)")
            #expect(start.outcome == .delivered && start.status == 200 && start.instances == ["test"])
            #expect(end.outcome == .delivered && end.status == 200 && end.attempt == 1)
            let accepted = harness.mock.pushes(token: keyStart).filter { $0.status == 200 }
            #expect(accepted.count == 2 && start.apnsID != nil && start.apnsID == accepted.last?.id)
            let sent = try #require(start.sentAt)
            #expect(start.storedAt > before && start.storedAt <= sent && start.answeredAt != nil)
            #expect(PushHistoryView.contentState(of: start.payload) != nil)
            // The followers: one entry per push, counted as a fan-out is, b's failure linking to it.
            let toFollowers = renewal.filter { $0.fanOut != nil }
            #expect(toFollowers.map(\.kind) == [.end, .start])
            let starts = try #require(toFollowers.last), ends = try #require(toFollowers.first)
            #expect(starts.outcome == .fannedOut && ends.outcome == .fannedOut && starts.instances == ["test"])
            #expect(starts.fanOut?.sent == 1 && starts.fanOut?.failed == 1 && starts.fanOut?.held == 0)
            #expect(starts.fanOut?.failures.map(\.reason) == ["Unregistered"])
            #expect(starts.fanOut?.failures.first?.devices == ["b"])
            #expect(ends.fanOut?.sent == 1 && ends.fanOut?.failed == 0 && ends.fanOut?.failures == [])

            // Over HTTP.
            let page = try await bridge.json("LL-204/pushes?limit=50")
            let pushes = try #require(page["pushes"] as? [[String: Any]])
            let shownStart = try #require(pushes.first { $0["id"] as? Int == Int(start.id) })
            #expect(shownStart["renewal"] as? Int == start.renewal.map(Int.init))
            #expect(shownStart["status"] as? Int == 200 && shownStart["apns-id"] as? String == start.apnsID)
            #expect(shownStart["instance"] as? String == "test" && shownStart["outcome"] as? String == "delivered")
            let shownStarts = try #require(pushes.first { $0["id"] as? Int == Int(starts.id) })
            let tally = try #require(shownStarts["followers"] as? [String: Any])
            #expect(tally["sent"] as? Int == 1 && tally["failed"] as? Int == 1 && shownStarts["fan-out"] == nil)
            let failure = try #require((tally["failures"] as? [[String: Any]])?.first)
            #expect(failure["followers"] as? [String] == ["/v1/activities/LL-204/followers/b"])

            // Each follower's last push is its renewal's, with what became of it for the device.
            let a = try #require(try await bridge.json("LL-204/followers/a")["last-push"] as? [String: Any])
            #expect(a["id"] as? Int == Int(ends.id) && a["kind"] as? String == "end")
            #expect(a["delivery"] as? String == "delivered")
            let b = try #require(try await bridge.json("LL-204/followers/b")["last-push"] as? [String: Any])
            #expect(b["id"] as? Int == Int(starts.id) && b["delivery"] as? String == "failed")
            #expect(b["delivery-reason"] as? String == "Unregistered")

            // The operator's listing reads the same store.
            let listed = try await Self.bridgeHistory(bridge.location, key: "LL-204")
            #expect(listed.status == 0, "\(listed.stderr)")
            for line in [
                "why: renewal #1: successor starts", "why: renewal #1: predecessor ends",
                "apns-id \(start.apnsID ?? "?")", "1 follower sent, 1 failed", "Unregistered ×1: b",
                "#\(start.id) ", "renewal \(start.renewal ?? 0)",
            ] {
                #expect(listed.stdout.contains(line), "\(line) in:\n\(listed.stdout)")
            }

            // Kept as long as the events, then pruned with their failure summaries.
            let pruner = StorePruner(
                store: harness.store, policy: RetentionPolicy(events: .seconds(60)), sources: ["flight"],
                logger: Logger(label: "liveline.tests.renewal", factory: { _ in SwiftLogNoOpLogHandler() }))
            #expect(try await pruner.prune(now: harness.now + 61_000).history >= records.count)
            #expect(try await harness.store.pushHistory(activityKey: "LL-204", before: nil, limit: 50).isEmpty)
            let sql = try #require(harness.store as? SQLStore)
            let summaries = try await sql.transaction { tx in
                try await tx.run("SELECT COUNT(*) FROM renewal_failures").first?.int(0)
            }
            #expect(summaries == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aHeldRenewalIsRecordedOnceWhileItWaitsAndItsDeliveryFollows(_ kind: StoreKind) async throws {
        try await BridgeRenewalTests.withBridge(kind) { bridge in
            let harness = bridge.harness
            let devices = try await Self.started(bridge, base: 220)
            let halts = APNsHalts(
                probeInterval: HeldPushHistoryTests.probeInterval, logger: HeldPushHistoryTests.logger)
            let sender = RenewalSender(
                store: harness.store, clients: APNsClients(harness.client), halts: halts,
                configuration: .init(instance: "held", retry: RetryPolicy(base: .seconds(1), cap: .seconds(4))))
            try await harness.run(for: 7 * 3600 + 20 * 60, step: 1200)
            // The renewal is decided; APNs refuses the topic by then: every device waits.
            harness.advance(seconds: 600)
            _ = try await harness.dispatcher.dispatch(now: harness.now)
            _ = try await harness.sender.send(now: harness.now)
            _ = try await harness.fanOut.send(now: harness.now)
            harness.mock.setFaults(HeldPushHistoryTests.refusal)
            #expect(try await sender.send(now: harness.now).held == 3)

            func renewalEntries() async throws -> [PushRecord] {
                try await harness.store.pushHistory(activityKey: "LL-204", before: nil, limit: 50).filter {
                    $0.renewal != nil
                }
            }
            var entries = try await renewalEntries()
            let held = entries.filter { $0.fanOut == nil }
            #expect(held.map(\.outcome) == [.held] && held.first?.kind == .start)
            #expect(held.first?.status == 400 && held.first?.apnsReason == "TopicDisallowed")
            #expect(held.first?.error?.contains("halted") == true, "\(held.first?.error ?? "")")
            #expect(entries.first { $0.fanOut != nil && $0.kind == .start }?.fanOut?.held == 2)
            let waiting = try #require(try await bridge.json("LL-204/followers/a")["last-push"] as? [String: Any])
            #expect(waiting["delivery"] as? String == "held" && waiting["held-until"] is String)

            // Due again and held again, without being sent: nothing more in the history.
            let refused = devices.map { harness.mock.pushes(token: $0.start).count }
            harness.advance(seconds: HeldPushHistoryTests.later)
            #expect(try await sender.send(now: harness.now).held == 3)
            #expect(try await renewalEntries() == entries)
            #expect(devices.map { harness.mock.pushes(token: $0.start).count } == refused, "nothing was sent")

            // APNs takes the setup again: the same attempt delivers, the ends follow.
            harness.mock.setFaults(.none)
            halts.reset()
            harness.advance(seconds: HeldPushHistoryTests.later)
            let resumed = try await sender.send(now: harness.now)
            let ended = try await sender.send(now: harness.now)
            #expect(resumed.started == 3 && ended.ended == 3, "\(resumed) \(ended)")
            entries = try await renewalEntries()
            #expect(entries.filter { $0.fanOut == nil }.map(\.outcome) == [.delivered, .delivered, .held])
            #expect(entries.filter { $0.fanOut == nil && $0.kind == .start }.map(\.attempt) == [1, 1])
            let starts = try #require(entries.first { $0.fanOut != nil && $0.kind == .start })
            #expect(starts.fanOut?.sent == 2 && starts.fanOut?.held == 2 && starts.outcome == .fannedOut)
            let last = try #require(try await bridge.json("LL-204/followers/a")["last-push"] as? [String: Any])
            #expect(last["delivery"] as? String == "delivered" && last["kind"] as? String == "end")
            for device in devices {
                #expect(BridgeRenewalTests.current(harness.mock, device.start).count == 1)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func historyOffRecordsNoRenewalAndStillRenews(_ kind: StoreKind) async throws {
        try await BridgeRenewalTests.withBridge(kind, keepsHistory: false) { bridge in
            let harness = bridge.harness
            let devices = try await Self.started(bridge, base: 230)
            try await harness.run(for: 7 * 3600 + 40 * 60, step: 600)
            #expect(try await harness.store.pushHistory(activityKey: "LL-204", before: nil, limit: 50).isEmpty)
            let renewal = try #require(try await bridge.json("LL-204")["renewal"] as? [String: Any])
            #expect(renewal["renewed"] as? Int == 3 && renewal["state"] as? String == "done")
            for device in devices {
                #expect(harness.mock.activities().filter { $0.pushToStartToken == device.start }.count == 2)
            }
        }
    }
}
