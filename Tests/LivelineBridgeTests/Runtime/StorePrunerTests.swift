import Foundation
import Liveline
import Logging
import Testing
@testable import LivelineBridge

/// Nothing used to be deleted: a store at a steady webhook rate grew without end. What a user
/// needs instead: events and dead letters kept as long as the retention says and no longer,
/// pending events never lost, and the store's work while it prunes done in small batches.
@Suite struct StorePrunerTests {
    typealias F = StoreFixture
    static let day: TimeInterval = 86_400

    @Test(arguments: StoreKind.allCases)
    func eventsAndDeadLettersOlderThanTheirRetentionGoAndNothingElse(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            // 1,100 dispatched events 9 days old, 30 from an hour ago, on 100 activities.
            let old = (0..<1100).map {
                F.event("old-\($0)", activityKey: "act-\($0 % 100)", order: Int64($0), at: -9 * Self.day + Double($0))
            }
            let recent = (0..<30).map {
                F.event("new-\($0)", activityKey: "act-\($0)", order: Int64(5000 + $0), at: -3600)
            }
            _ = try await store.insertEvents(old + recent)
            let claimed = try await store.claimNextEvents(limit: 1000, instance: "i", lease: .seconds(30), now: F.epoch)
            let sequences = claimed.flatMap { $0.events.map(\.sequence) }
            let superseded = Array(sequences.prefix(100))
            #expect(
                try await store.markSuperseded(superseded, reason: "older than an event already applied", instance: "i")
                    == 100)
            #expect(try await store.markApplied(Array(sequences.dropFirst(100)), instance: "i") == 1030)
            try await store.releaseActivities(claimed.map(\.activityKey), instance: "i")
            // 50 as old but never dispatched (their activity is not registered): they wait.
            _ = try await store.insertEvents(
                (0..<50).map {
                    F.event("waiting-\($0)", activityKey: "unregistered", order: Int64($0), at: -9 * Self.day)
                }
            )
            // A stream source whose events are all old keeps its newest (it resumes from there).
            _ = try await store.insertEvents(
                (0..<3).map {
                    F.event(
                        "feed-\($0)", activityKey: "match", order: Int64($0), source: "feed",
                        at: -20 * Self.day + Double($0))
                })
            let feed = try await store.claimNextEvents(limit: 10, instance: "i", lease: .seconds(30), now: F.epoch)
            let match = feed.filter { $0.activityKey == "match" }.flatMap { $0.events.map(\.sequence) }
            #expect(try await store.markApplied(match, instance: "i") == 3)

            // Dead letters: one failed 40 days ago, one yesterday.
            _ = try await store.registerActivity(
                ActivityRegistration(
                    activityKey: "dead", targets: ActivityTargets(updateToken: "aa"), source: "delivery"),
                now: F.epoch
            )
            for age in [40.0, 1.0] {
                let id = try await store.enqueuePush(
                    OutboxPush(
                        activityKey: "dead", payload: Array("{}".utf8),
                        headers: PushHeaders(topic: nil, priority: .high, expiration: 0), dueAt: F.epoch,
                        kind: .update, receivedAt: nil
                    ))
                _ = try await store.writePushOutcomes([
                    .undeliverable(
                        id, answer: nil, error: "BadDeviceToken", forgetToken: false,
                        now: F.epoch - Millis(age * Self.day * 1000))
                ])
            }

            let metrics = BridgeMetrics()
            let pruner = StorePruner(
                // Batches far under their time: each twice the last, from 32 rows up to 500.
                store: store,
                policy: RetentionPolicy(
                    events: .seconds(7 * 86_400), deadLetters: .seconds(30 * 86_400), batch: 500,
                    batchTime: .seconds(3600), pause: .zero
                ),
                sources: ["doordash", "feed"], metrics: metrics, logger: Logger(label: "liveline.tests.pruner")
            )
            let report = try await pruner.prune(now: F.epoch)
            #expect(report.events == 1100 + 2)
            #expect(report.deadLetters == 1)
            // 32, 64, 128, 256, 500 and 120 for doordash, one for feed, one for fan-outs, one for
            // the delivery history, one for dead letters.
            #expect(report.batches == 10)

            #expect(try await store.counts().pendingEvents == 50)
            #expect(try await Self.eventIDs(store, activityKey: "act-7") == ["new-7"])
            #expect(try await Self.eventIDs(store, activityKey: "match") == ["feed-2"])
            #expect(try await store.sourcePosition("feed", activityLimit: 10)?.lastEventID == "feed-2")
            #expect(try await store.deadLetters(limit: 10).map(\.lastError) == ["BadDeviceToken"])
            #expect(try await store.deadLetters(limit: 10).first?.failedAt == F.epoch - Millis(Self.day * 1000))
            let exposition = String(decoding: metrics.exposition(), as: UTF8.self)
            #expect(exposition.contains(#"liveline_store_pruned_rows_total{table="inbox_events"} 1102"#))
            #expect(exposition.contains(#"liveline_store_pruned_rows_total{table="dead_letters"} 1"#))

            // A day later nothing more is old enough; nine days later the recent ones go too, but
            // for the source's newest.
            #expect(try await pruner.prune(now: F.epoch + Millis(Self.day * 1000)).events == 0)
            #expect(try await pruner.prune(now: F.epoch + Millis(9 * Self.day * 1000)).events == 29)
            #expect(try await store.counts().pendingEvents == 50)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func keepingForeverDeletesNothing(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            _ = try await store.insertEvents((0..<10).map { F.event("e\($0)", order: Int64($0), at: -400 * Self.day) })
            let claimed = try await store.claimNextEvents(limit: 10, instance: "i", lease: .seconds(30), now: F.epoch)
            _ = try await store.markApplied(claimed.flatMap { $0.events.map(\.sequence) }, instance: "i")
            let pruner = StorePruner(
                store: store, policy: .keepEverything, sources: ["doordash"],
                logger: Logger(label: "liveline.tests.pruner"))
            #expect(try await pruner.prune(now: F.epoch) == StorePruner.Report())
            #expect(try await Self.eventIDs(store, activityKey: "order-1").count == 10)
        }
    }

    /// The ids of the events the store holds for `activityKey`, in arrival order.
    static func eventIDs(_ store: SQLStore, activityKey: String) async throws -> [String] {
        try await store.transaction { tx in
            try await tx.run(
                "SELECT event_id FROM inbox_events WHERE activity_key = $1 ORDER BY sequence", [.text(activityKey)]
            ).map { try $0.text(0) }
        }
    }
}
