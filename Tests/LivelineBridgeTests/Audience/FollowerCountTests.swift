import Foundation
import Liveline
import LivelineMockAPNs
import Testing
@testable import LivelineBridge

/// The follower counts by state are kept by the store (a row per key, changed in the
/// transaction of every change) instead of counted by a pass over the audience: after every
/// kind of change they equal a count of the rows themselves.
@Suite struct FollowerCountTests {
    static func follower(_ n: Int, start: Bool = false, channel: Bool = false) -> Follower {
        start
            ? Follower(device: "device-\(n)", startToken: BridgeHarness.token(500 + n), onChannel: channel)
            : Follower(device: "device-\(n)", updateToken: BridgeHarness.token(100 + n), onChannel: channel)
    }

    /// The counts as the rows have them: what the kept counts must equal.
    static func scanned(_ store: SQLStore, _ key: String) async throws -> FollowerCounts {
        try await store.transaction { tx in
            var counts = FollowerCounts()
            for row in try await tx.run(
                "SELECT update_token, on_channel FROM followers WHERE activity_key = $1", [.text(key)])
            {
                if try row.int(1) != 0 {
                    counts.onChannel += 1
                } else if try row.optionalBytes(0) != nil {
                    counts.updating += 1
                } else {
                    counts.awaitingStart += 1
                }
            }
            for row in try await tx.run("SELECT state FROM follower_exceptions WHERE activity_key = $1", [.text(key)]) {
                switch try row.text(0) {
                case "retrying": counts.retrying += 1
                case "late": counts.catchingUp += 1
                default: break
                }
            }
            return counts
        }
    }

    static func counts(
        updating: Int = 0, awaitingStart: Int = 0, onChannel: Int = 0, retrying: Int = 0, catchingUp: Int = 0
    ) -> FollowerCounts {
        var counts = FollowerCounts()
        counts.updating = updating
        counts.awaitingStart = awaitingStart
        counts.onChannel = onChannel
        counts.retrying = retrying
        counts.catchingUp = catchingUp
        return counts
    }

    /// The kept counts equal the rows' and `expected`.
    static func expectCounts(
        _ store: SQLStore, _ key: String, _ expected: FollowerCounts, _ step: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        let kept = try await store.followerCounts(activityKey: key)
        let rows = try await scanned(store, key)
        #expect(kept == rows, "\(step): kept \(kept), rows \(rows)", sourceLocation: sourceLocation)
        #expect(kept == expected, "\(step): kept \(kept), expected \(expected)", sourceLocation: sourceLocation)
    }

    @Test(arguments: StoreKind.allCases)
    func countsStayExactThroughEveryChangeOfAFollower(_ kind: StoreKind) async throws {
        try await withBridge(kind, fanOut: FanOutTests.stepwise) { bridge in
            let store = try #require(bridge.store as? SQLStore)
            try await FanOutTests.registerAudience(bridge, "D-1")
            try await FanOutTests.registerAudience(bridge, "D-2")
            #expect(try await store.followerCounts(activityKey: "D-1") == FollowerCounts())

            // Registered: four with update tokens, one waiting for its start, one on the channel.
            let first =
                (1...4).map { Self.follower($0) } + [Self.follower(5, start: true), Self.follower(6, channel: true)]
            _ = try await store.putFollowers(first, activityKey: "D-1", now: bridge.now)
            _ = try await store.putFollowers(
                [Self.follower(1), Self.follower(2, start: true)], activityKey: "D-2", now: bridge.now)
            try await Self.expectCounts(
                store, "D-1", Self.counts(updating: 4, awaitingStart: 1, onChannel: 1), "registered")

            // Registered again: unchanged, the start token's app reports its update token, the
            // channel's device leaves the channel, and one device twice in one call (the last wins).
            var reported = Self.follower(5, start: true)
            reported.updateToken = BridgeHarness.token(105)
            let again = [
                Self.follower(1), reported, Self.follower(6), Self.follower(7, channel: true), Self.follower(7),
            ]
            #expect(
                try await store.putFollowers(again, activityKey: "D-1", now: bridge.now) == [
                    .unchanged, .updated, .updated, .created, .created,
                ])
            try await Self.expectCounts(store, "D-1", Self.counts(updating: 7), "registered again")

            // Deleted: one, and one that is not there.
            #expect(try await store.deleteFollower(device: "device-3", activityKey: "D-1"))
            #expect(!(try await store.deleteFollower(device: "device-3", activityKey: "D-1")))
            try await Self.expectCounts(store, "D-1", Self.counts(updating: 6), "deleted")

            // Imported in bulk: 300 lines in batches of 128, new devices and ones already there
            // (two of them joining the channel).
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "followers-\(UUID().uuidString).ndjson")
            defer { try? FileManager.default.removeItem(at: file) }
            var lines = (10..<308).map {
                #"{"device":"device-\#($0)","update-token":"\#(BridgeHarness.token(100 + $0))"}"#
            }
            lines += (1...2).map {
                #"{"device":"device-\#($0)","update-token":"\#(BridgeHarness.token(100 + $0))","channel":true}"#
            }
            try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            let report = try await FollowerImport.run(
                path: file.path, activityKey: "D-1", store: store, batch: 128, now: { bridge.now })
            #expect(report.created == 298 && report.updated == 2)
            try await Self.expectCounts(store, "D-1", Self.counts(updating: 302, onChannel: 2), "imported")

            // A fan-out whose answers take two update tokens away (410, then BadDeviceToken for
            // device-5, which keeps its push-to-start token and waits for a start again), back
            // off two (retrying) and give one up (rejected: it stays a follower, no exception).
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            var claimed = try await store.claimFanOutRange(
                limit: 6, instance: "test", lease: .seconds(60), now: bridge.now)
            // The story's start push has no one to go to here (no follower waits for a start).
            while let empty = claimed, empty.targets.isEmpty {
                _ = try await store.writeFanOut(empty, answers: [], instance: "test", now: bridge.now)
                claimed = try await store.claimFanOutRange(
                    limit: 6, instance: "test", lease: .seconds(60), now: bridge.now)
            }
            let range = try #require(claimed)
            #expect(range.targets.count == 6)
            let retryAt = bridge.now + 5000
            let outcomes: [FollowerOutcome] = [
                .tokenGone(reason: "Unregistered"), .tokenGone(reason: "BadDeviceToken"),
                .retry(reason: "TooManyRequests", error: "429", retryAt: retryAt, maxAttempts: 3),
                .retry(reason: "InternalServerError", error: "500", retryAt: retryAt, maxAttempts: 3),
                .rejected(reason: "PayloadTooLarge"), .sent,
            ]
            let answers = zip(range.targets, outcomes).map { FollowerAnswer(target: $0, outcome: $1) }
            let progress = try await store.writeFanOut(range, answers: answers, instance: "test", now: bridge.now)
            #expect(progress.pruned == 1)
            try await Self.expectCounts(
                store, "D-1", Self.counts(updating: 300, awaitingStart: 1, onChannel: 2, retrying: 2),
                "fan-out answered")

            // A device joins after the story began: catching up. Its catch-up is sent; of the
            // two retries, one is answered and one fails for good.
            _ = try await store.putFollowers([Self.follower(400)], activityKey: "D-1", now: bridge.now)
            try await Self.expectCounts(
                store, "D-1", Self.counts(updating: 301, awaitingStart: 1, onChannel: 2, retrying: 2, catchingUp: 1),
                "joined late")
            bridge.advance(seconds: 6)
            let due = try await store.claimCatchUps(limit: 10, instance: "test", lease: .seconds(60), now: bridge.now)
            #expect(due.count == 3)
            try await Self.expectCounts(
                store, "D-1", Self.counts(updating: 301, awaitingStart: 1, onChannel: 2, retrying: 2, catchingUp: 1),
                "claimed")
            let late = try #require(due.first { $0.target.followerID > range.toID })
            let retries = due.filter { $0.target.followerID <= range.toID }
            _ = try await store.writeCatchUps(
                [(late, .sent), (retries[0], .sent), (retries[1], .rejected(reason: "BadTopic"))], now: bridge.now)
            try await Self.expectCounts(
                store, "D-1", Self.counts(updating: 301, awaitingStart: 1, onChannel: 2), "caught up")

            // A late joiner's catch-up that fails stays a catch-up (retried, still without its
            // alert); one that then finds its token gone leaves.
            _ = try await store.putFollowers([Self.follower(401)], activityKey: "D-1", now: bridge.now)
            let next = try await store.claimCatchUps(limit: 10, instance: "test", lease: .seconds(60), now: bridge.now)
            _ = try await store.writeCatchUps(
                next.map { ($0, .retry(reason: "TooManyRequests", error: "429", retryAt: retryAt, maxAttempts: 3)) },
                now: bridge.now)
            try await Self.expectCounts(
                store, "D-1", Self.counts(updating: 302, awaitingStart: 1, onChannel: 2, catchingUp: 1), "late, retried"
            )
            bridge.advance(seconds: 6)
            let gone = try await store.claimCatchUps(limit: 10, instance: "test", lease: .seconds(60), now: bridge.now)
            _ = try await store.writeCatchUps(gone.map { ($0, .tokenGone(reason: "Unregistered")) }, now: bridge.now)
            try await Self.expectCounts(
                store, "D-1", Self.counts(updating: 301, awaitingStart: 1, onChannel: 2), "retry gone")

            // Every key's counts are the sum; a deleted activity takes its counts along.
            #expect(try await store.allFollowerCounts() == Self.counts(updating: 302, awaitingStart: 2, onChannel: 2))
            #expect(try await store.deleteActivity("D-1"))
            #expect(try await store.followerCounts(activityKey: "D-1") == FollowerCounts())
            #expect(try await store.allFollowerCounts() == Self.counts(updating: 1, awaitingStart: 1))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aGoneTokenAnsweredByAPNsLeavesTheCounts(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            try await FanOutTests.registerAudience(bridge)
            let followers = (1...4).map { Self.follower($0) }
            _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            bridge.mock.setFaults(FaultPlan(unregisteredTokens: [try #require(followers[0].updateToken)]))
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            try await Self.expectCounts(
                try #require(bridge.store as? SQLStore), "D-1", Self.counts(updating: 3), "410 from the mock")
        }
    }

    /// A store with followers from before the counts were kept gets them counted at the upgrade.
    @Test(arguments: StoreKind.allCases)
    func theUpgradeCountsTheFollowersAlreadyStored(_ kind: StoreKind) async throws {
        try await StoreFixture.withLocation(kind) { location in
            let old = try await SQLStore.open(location, now: StoreFixture.epoch, migratingThrough: 7)
            try await old.transaction { tx in
                for (id, key, update, channel) in [
                    (1, "A", true, 0), (2, "A", false, 0), (3, "A", true, 1), (4, "B", true, 0),
                ] as [(Int64, String, Bool, Int64)] {
                    try await tx.run(
                        "INSERT INTO followers (id, activity_key, device, update_token, start_token, on_channel) VALUES ($1, $2, $3, $4, $5, $6)",
                        [
                            .int(id), .text(key), .text("d\(id)"), update ? .bytes([1, 2]) : .null,
                            update ? .null : .bytes([3]), .int(channel),
                        ]
                    )
                }
                for (id, state) in [(1, "retrying"), (2, "late")] as [(Int64, String)] {
                    try await tx.run(
                        "INSERT INTO follower_exceptions (follower_id, activity_key, state, due_at) VALUES ($1, 'A', $2, 0)",
                        [.int(id), .text(state)]
                    )
                }
            }
            try await old.close()
            let upgraded = try await SQLStore.open(location, now: StoreFixture.epoch)
            #expect(upgraded.migrationsAppliedAtOpen.contains(8))
            #expect(
                try await upgraded.followerCounts(activityKey: "A")
                    == Self.counts(updating: 1, awaitingStart: 1, onChannel: 1, retrying: 1, catchingUp: 1))
            #expect(try await upgraded.followerCounts(activityKey: "B") == Self.counts(updating: 1))
            #expect(try await upgraded.followerCounts(activityKey: "A") == (try await Self.scanned(upgraded, "A")))
            // The rows (rebuilt on PostgreSQL) keep their ids, and new ones are numbered after them.
            #expect(
                try await upgraded.follower(device: "d3", activityKey: "A")
                    == Follower(device: "d3", updateToken: "0102", onChannel: true))
            #expect(
                try await upgraded.putFollowers(
                    [Follower(device: "d5", updateToken: BridgeHarness.token(5))], activityKey: "A",
                    now: StoreFixture.epoch) == [.created])
            let ids = try await upgraded.transaction { tx in
                try await tx.run("SELECT id FROM followers ORDER BY id").map { try $0.int(0) }
            }
            #expect(ids == [1, 2, 3, 4, 5])
            #expect(try await upgraded.followerCounts(activityKey: "A").updating == 2)
            try await upgraded.close()
        }
    }
}
