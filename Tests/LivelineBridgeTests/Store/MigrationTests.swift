import Foundation
import Liveline
import Testing
@testable import LivelineBridge

@Suite struct MigrationTests {
    typealias F = StoreFixture

    @Test(arguments: StoreKind.allCases)
    func migrationsApplyOnceAndReopeningKeepsEverything(_ kind: StoreKind) async throws {
        try await F.withLocation(kind) { location in
            let first = try await SQLStore.open(location, now: F.epoch)
            let versions = Migrations.steps.map(\.version)
            #expect(first.migrationsAppliedAtOpen == versions)
            _ = try await first.insertEvents([F.event("kept", order: 7)])
            try await first.upsertActivity(
                RegisteredActivity(
                    activityKey: "order-1", updateToken: "aa", source: "delivery", engineState: [9], updatedAt: F.epoch)
            )
            _ = try await first.enqueuePush(OutboxTests.push())
            try await first.addAPIKey(name: "ops", key: "k", now: F.epoch)
            try await first.close()

            // Two opens at once (two bridge instances starting) migrate nothing twice.
            async let secondOpen = SQLStore.open(location, now: F.epoch)
            async let thirdOpen = SQLStore.open(location, now: F.epoch)
            let (second, third) = try await (secondOpen, thirdOpen)
            #expect(second.migrationsAppliedAtOpen.isEmpty)
            #expect(third.migrationsAppliedAtOpen.isEmpty)
            #expect(try await second.appliedMigrations() == versions)
            #expect(
                try await second.counts() == StoreCounts(pendingEvents: 1, outbox: 1, deadLetters: 0, activities: 1))
            #expect(try await second.insertEvents([F.event("kept", order: 7)]) == [.duplicate])
            #expect(try await second.activity("order-1")?.engineState == [9])
            #expect(try await second.verifyAPIKey("k") == "ops")
            let claimed = try await second.claimNextEvents(limit: 1, instance: "i", lease: .seconds(1), now: F.epoch)
            #expect(claimed.first?.events.first?.event == F.event("kept", order: 7))
            try await second.close()
            try await third.close()
        }
    }

    /// Registers an activity as a bridge before migration 11 did (its source in `scenario`).
    static func registerBeforeMigration11(
        _ store: SQLStore, activityKey: String, updateToken: String, source: String
    ) async throws {
        try await register(
            store, activityKey: activityKey, updateToken: updateToken, source: source, column: "scenario")
    }

    /// Registers a pending activity with only the columns every store of its age has: its
    /// source in `column` (`scenario` before migration 11, `source` from it on).
    static func register(
        _ store: SQLStore, activityKey: String, updateToken: String, source: String, column: String = "source"
    ) async throws {
        try await store.transaction { tx in
            try await SQLStore.markRegistered(activityKey, tx)
            try await tx.run(
                """
                INSERT INTO activities (key, update_token, \(column), frequent_updates, lifecycle, updated_at)
                VALUES ($1, $2, $3, 0, 'pending', $4)
                """,
                [.text(activityKey), .text(updateToken), .text(source), .int(F.epoch)])
        }
    }

    /// A store written by a bridge before migration 6 (one index by activity and state) keeps
    /// its pending events claimable and its applied ones recordable after the upgrade.
    @Test(arguments: StoreKind.allCases)
    func anUpgradedStoreKeepsItsPendingAndAppliedEvents(_ kind: StoreKind) async throws {
        try await F.withLocation(kind) { location in
            let old = try await SQLStore.open(location, now: F.epoch, migratingThrough: 5)
            #expect(old.migrationsAppliedAtOpen == [1, 2, 3, 4, 5])
            _ = try await old.insertEvents([
                F.event("a", order: 1), F.event("b", order: 2), F.event("c", activityKey: "order-2", order: 3),
            ])
            try await Self.registerBeforeMigration11(old, activityKey: "order-1", updateToken: "aa", source: "delivery")
            // What a dispatch step of that bridge wrote when it applied "a" (today's dispatcher
            // reads tables of later migrations, such as the followers of migration 7).
            let written = try await old.transaction { tx in
                try await tx.run(
                    "UPDATE inbox_events SET state = 'applied', applied_at = $1 WHERE event_id = 'a' RETURNING sequence",
                    [.int(F.epoch)]
                ).count
            }
            #expect(written == 1)
            try await old.close()

            let upgraded = try await SQLStore.open(location, now: F.epoch)
            #expect(upgraded.migrationsAppliedAtOpen == Migrations.steps.map(\.version).filter { $0 > 5 })
            #expect(try await upgraded.pendingEvents(for: "order-1") == 1)
            #expect(try await upgraded.activity("order-1")?.source == "delivery")
            #expect(try await upgraded.counts().pendingEvents == 2)
            let pending = try await upgraded.claimNextEvents(limit: 10, instance: "i", lease: .seconds(5), now: F.epoch)
            #expect(pending.map(\.activityKey).sorted() == ["order-1", "order-2"])
            #expect(pending.first { $0.activityKey == "order-1" }?.events.map(\.event.eventID) == ["b"])
            #expect(try await upgraded.dispatchedEvents(activityKey: "order-1").map(\.event.eventID) == ["a"])
            try await upgraded.close()
        }
    }

    /// A store of migration 16 keeps its iPhone activity and its queued push after migration 17
    /// (an activity's FCM token, an outbox push's FCM message), and takes an Android one after.
    @Test(arguments: StoreKind.allCases)
    func anUpgradedStoreKeepsItsActivitiesAsIPhones(_ kind: StoreKind) async throws {
        try await F.withLocation(kind) { location in
            let old = try await SQLStore.open(location, now: F.epoch, migratingThrough: 16)
            try await Self.register(old, activityKey: "order-1", updateToken: "aa", source: "delivery")
            try await old.transaction { tx in
                try await tx.run(
                    """
                    INSERT INTO outbox (activity_key, payload, priority, due_at, kind, topic, expiration)
                    VALUES ('order-1', $1, 10, $2, 'update', 'com.example.app.push-type.liveactivity', 0)
                    """,
                    [.bytes(Array(#"{"aps":{}}"#.utf8)), .int(F.epoch)])
            }
            try await old.close()

            let upgraded = try await SQLStore.open(location, now: F.epoch)
            #expect(upgraded.migrationsAppliedAtOpen == [17])
            let kept = try #require(try await upgraded.activity("order-1"))
            #expect(kept.updateToken == "aa" && kept.fcmToken == nil && kept.platform == .ios)
            let claimed = try await upgraded.claimDuePushes(limit: 5, instance: "i", lease: .seconds(5), now: F.epoch)
            #expect(claimed.count == 1 && claimed.first?.push.android == nil && claimed.first?.target.fcmToken == nil)
            _ = try await upgraded.registerActivity(
                ActivityRegistration(
                    activityKey: "order-2", targets: ActivityTargets(fcmToken: "fid:cXk1Installation"),
                    source: "delivery"),
                now: F.epoch)
            #expect(try await upgraded.activity("order-2")?.platform == .android)
            try await upgraded.close()
        }
    }

    /// Pushes written before migration 10, with their headers as a JSON object, are sent with the
    /// same topic, priority and expiration after the upgrade: from the outbox, the dead letters
    /// and the fan-outs.
    @Test(arguments: StoreKind.allCases)
    func anUpgradedStoreKeepsItsPushesHeaders(_ kind: StoreKind) async throws {
        try await F.withLocation(kind) { location in
            let old = try await SQLStore.open(location, now: F.epoch, migratingThrough: 9)
            try await Self.registerBeforeMigration11(old, activityKey: "order-1", updateToken: "aa", source: "delivery")
            let topic = "com.example.push-type.liveactivity"
            let payload = Array(#"{"aps":{"event":"update"}}"#.utf8)
            @Sendable func headers(priority: String, expiration: String) -> SQLValue {
                .bytes(
                    StoredHeaders.encode([
                        "apns-topic": topic, "apns-push-type": "liveactivity", "apns-priority": priority,
                        "apns-expiration": expiration,
                    ]))
            }
            // As that bridge wrote them.
            try await old.transaction { tx in
                try await tx.run(
                    "INSERT INTO outbox (activity_key, payload, headers, priority, due_at, kind) VALUES ('order-1', $1, $2, 5, $3, 'update')",
                    [.bytes(payload), headers(priority: "5", expiration: "1800000600"), .int(F.epoch)])
                try await tx.run(
                    """
                    INSERT INTO dead_letters (activity_key, payload, headers, priority, due_at, kind, attempts, last_error, failed_at)
                    VALUES ('order-2', $1, $2, 10, $3, 'start', 3, 'gone', $3)
                    """,
                    [.bytes(payload), headers(priority: "10", expiration: "0"), .int(F.epoch)])
                try await tx.run(
                    """
                    INSERT INTO fanouts (activity_key, kind, payload, headers, priority, due_at, created_at, upto)
                    VALUES ('match', 'update', $1, $2, 10, $3, $3, 0)
                    """,
                    [.bytes(payload), headers(priority: "10", expiration: "1800003600"), .int(F.epoch)])
            }
            try await old.close()

            let upgraded = try await SQLStore.open(location, now: F.epoch)
            #expect(upgraded.migrationsAppliedAtOpen == Migrations.steps.map(\.version).filter { $0 > 9 })
            let claimed = try await upgraded.claimDuePushes(limit: 5, instance: "i", lease: .seconds(5), now: F.epoch)
            #expect(
                claimed.map(\.push.headers) == [PushHeaders(topic: topic, priority: .low, expiration: 1_800_000_600)])
            #expect(claimed.first?.push.payload == payload)
            let letters = try await upgraded.deadLetters(limit: 5)
            #expect(letters.map(\.push.headers) == [PushHeaders(topic: topic, priority: .high, expiration: 0)])
            #expect(letters.first?.push.kind == .start)
            let fanOut = try await upgraded.transaction { tx in
                try await tx.run("SELECT topic, priority, expiration FROM fanouts").map {
                    [try $0.text(0), String(try $0.int(1)), String(try $0.int(2))]
                }
            }
            #expect(fanOut == [[topic, "10", "1800003600"]])
            try await upgraded.close()
        }
    }

    /// Tokens stored before they had an environment go where the configuration's
    /// `apns.environment` says, and a key's followers are counted by environment from the
    /// upgrade on (the followers there already are the rest of its total).
    @Test(arguments: StoreKind.allCases)
    func tokensStoredBeforeEnvironmentsFollowTheDefault(_ kind: StoreKind) async throws {
        try await F.withLocation(kind) { location in
            let old = try await SQLStore.open(location, now: F.epoch, migratingThrough: 11)
            try await Self.register(old, activityKey: "match", updateToken: "aa11", source: "football")
            _ = try await old.transaction { tx in
                try await tx.run(
                    "INSERT INTO followers (activity_key, device, update_token) VALUES ('match', 'old', $1)",
                    [.bytes([0xAA, 0x22])])
            }
            try await old.close()

            let upgraded = try await SQLStore.open(location, now: F.epoch)
            #expect(upgraded.migrationsAppliedAtOpen == Migrations.steps.map(\.version).filter { $0 > 11 })
            #expect(try await upgraded.activity("match")?.environment == nil)
            #expect(try await upgraded.follower(device: "old", activityKey: "match")?.environment == nil)
            _ = try await upgraded.putFollowers(
                [Follower(device: "new", updateToken: "bb33", environment: .production)], activityKey: "match",
                now: F.epoch)
            let counts = try await upgraded.followerCounts(activityKey: "match")
            #expect(counts.named == [.production: 1])
            #expect(counts.byEnvironment(default: .sandbox) == [.sandbox: 1, .production: 1])
            try await upgraded.close()
        }
    }

    /// What each index is for, checked in SQLite's plans: the dispatcher's read of pending
    /// events uses the pending index, and the recorder's read of an activity the index by activity.
    @Test func theDispatcherAndTheRecorderReadThroughTheirIndexes() async throws {
        try await F.withLocation(.sqlite) { location in
            let store = try await SQLStore.open(location)
            let queries = [
                "SELECT sequence FROM inbox_events WHERE state = 'pending' AND activity_key IN ('a', 'b') ORDER BY activity_key, order_key, sequence",
                "SELECT sequence FROM inbox_events WHERE activity_key = 'a' AND state <> 'pending' AND applied_at IS NOT NULL ORDER BY applied_at, order_key, sequence",
            ]
            let plans = try await store.driver.transaction { tx in
                var plans: [String] = []
                for query in queries {
                    plans.append(
                        try await tx.run("EXPLAIN QUERY PLAN \(query)").map { try $0.text(3) }.joined(separator: "; "))
                }
                return plans
            }
            #expect(plans[0].contains("INDEX inbox_pending"), "\(plans[0])")
            #expect(plans[1].contains("INDEX inbox_by_activity"), "\(plans[1])")
            try await store.close()
        }
    }

    @Test func sqliteFileIsCreatedInWALMode() async throws {
        try await F.withLocation(.sqlite) { location in
            guard case .sqlite(let path) = location else { return }
            #expect(!FileManager.default.fileExists(atPath: path))
            let store = try await SQLStore.open(location)
            #expect(FileManager.default.fileExists(atPath: path))
            let modes = try await store.driver.transaction { tx in
                [
                    try await tx.run("PRAGMA journal_mode").first?.text(0),
                    String(try await tx.run("PRAGMA synchronous").first?.int(0) ?? -1),
                ]
            }
            #expect(modes == ["wal", "2"]) // 2 is FULL
            try await store.close()
        }
    }

    @Test func locationsParseAndErrorsNameTheCause() async throws {
        #expect(try StoreLocation(parsing: "sqlite:/tmp/x.db") == .sqlite(path: "/tmp/x.db"))
        let postgres = try StoreLocation(
            parsing: "postgres://liveline:p%40ss@127.0.0.1:5433/bridge?schema=b1&max-connections=3")
        #expect(
            postgres
                == .postgres(
                    PostgresLocation(
                        host: "127.0.0.1", port: 5433, user: "liveline", password: "p@ss", database: "bridge",
                        schema: "b1", maximumConnections: 3)))
        #expect("\(postgres)" == "postgres://liveline@127.0.0.1:5433/bridge?schema=b1")
        for bad in [
            "mysql://x", "sqlite:", "postgres://127.0.0.1/db", "postgres://u@127.0.0.1",
            "postgres://u@h/db?schema=a;drop",
        ] {
            #expect(throws: StoreError.self, "\(bad)") { try StoreLocation(parsing: bad) }
        }
        do {
            _ = try await SQLStore.open("sqlite:/nonexistent-dir-\(UUID().uuidString)/bridge.db")
            Issue.record("opened a store in a missing directory")
        } catch let error as StoreError {
            #expect("\(error)".contains("does not exist"))
        }
    }

    @Test func aPostgresThatIsNotThereSaysWhereAndWhy() async throws {
        // Port 1 on loopback: nothing listens there.
        do {
            _ = try await SQLStore.open("postgres://liveline:x@127.0.0.1:1/liveline")
            Issue.record("connected to port 1")
        } catch let error as StoreError {
            #expect(error.kind == .open)
            #expect("\(error)".hasPrefix("PostgreSQL at 127.0.0.1:1: cannot open: "), "\(error)")
            #expect(!"\(error)".contains("Generic description"), "\(error)")
        }
    }

    @Test func aWrongPostgresPasswordSaysSo() async throws {
        guard let url = try await F.postgresURL() else { return }
        var location = try PostgresLocation(parsing: url)
        location.password = "not-the-password"
        do {
            _ = try await SQLStore.open(.postgres(location))
            Issue.record("connected with a wrong password")
        } catch let error as StoreError {
            #expect("\(error)".contains("PostgreSQL at \(location.host):\(location.port)"))
            #expect("\(error)".contains("password authentication failed for user"), "\(error)")
        }
    }
}
