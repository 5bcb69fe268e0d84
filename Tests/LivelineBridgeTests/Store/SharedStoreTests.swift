import Foundation
import Synchronization
import Testing
@testable import LivelineBridge

/// Two bridge instances, each with its own open store (its own connection or pool), working
/// the same inbox the way the dispatcher does: dispatch passes, each stepping the activities it
/// claimed and writing what the steps decided in one transaction.
@Suite struct SharedStoreTests {
    typealias F = StoreFixture

    @Test(arguments: StoreKind.allCases)
    func twoInstancesApplyEveryEventOnceInOrder(_ kind: StoreKind) async throws {
        try await F.withLocation(kind) { location in
            let one = try await SQLStore.open(location, now: F.epoch)
            let two = try await SQLStore.open(location, now: F.epoch)
            let keys = (0..<20).map { "act-\($0)" }
            for key in keys {
                _ = try await one.registerActivity(
                    ActivityRegistration(
                        activityKey: key, targets: ActivityTargets(updateToken: "ab"), source: "delivery"),
                    now: F.epoch)
            }
            let events = (0..<200).map { F.event("e\($0)", activityKey: "act-\($0 % 20)", order: Int64($0)) }
            _ = try await one.insertEvents(events.shuffled())
            let log = ApplyLog()
            let worked: Result<Void, any Error>
            do {
                async let first: Void = Self.work(one, instance: "one", log: log, total: events.count)
                async let second: Void = Self.work(two, instance: "two", log: log, total: events.count)
                _ = try await (first, second)
                worked = .success(())
            } catch {
                worked = .failure(error)
            }
            try await one.close()
            try await two.close()
            try worked.get()

            let applied = log.applied
            #expect(applied.count == events.count)
            #expect(Set(applied.map(\.order)).count == events.count, "an event was applied twice")
            for (activity, orders) in Dictionary(grouping: applied, by: \.activityKey).mapValues({ $0.map(\.order) }) {
                #expect(orders == orders.sorted(), "\(activity) applied out of order: \(orders)")
            }
            #expect(log.overlaps.isEmpty, "activities held by both instances: \(log.overlaps)")
        }
    }

    /// Passes of three activities at a time until every event is applied.
    private static func work(_ store: SQLStore, instance: String, log: ApplyLog, total: Int) async throws {
        while log.applied.count < total {
            let written = try await store.dispatchPass(limit: 3, now: F.epoch) { work in
                log.enter(work.activity.activityKey, instance: instance)
                for stored in work.events {
                    log.apply(work.activity.activityKey, order: stored.event.orderKey, instance: instance)
                }
                log.leave(work.activity.activityKey)
                return DispatchCommit(
                    activityKey: work.activity.activityKey, applied: work.events.map(\.sequence),
                    lifecycle: work.activity.lifecycle,
                    engineState: [], nextDeadline: nil, now: F.epoch)
            }
            if written.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        }
    }
}

/// What both instances did, in one place, with any activity stepped by two at once. Steps are
/// synchronous (they run inside a pass's transaction), so the log is a lock, not an actor.
private final class ApplyLog: Sendable {
    struct Applied: Sendable {
        var activityKey: String
        var order: Int64
        var instance: String
    }

    private struct State {
        var applied: [Applied] = []
        var overlaps: [String] = []
        var holders: [String: String] = [:]
    }

    private let state = Mutex(State())

    var applied: [Applied] { state.withLock { $0.applied } }
    var overlaps: [String] { state.withLock { $0.overlaps } }

    func enter(_ activityKey: String, instance: String) {
        state.withLock {
            if let holder = $0.holders[activityKey], holder != instance { $0.overlaps.append(activityKey) }
            $0.holders[activityKey] = instance
        }
    }

    func leave(_ activityKey: String) { state.withLock { $0.holders[activityKey] = nil } }

    func apply(_ activityKey: String, order: Int64, instance: String) {
        state.withLock { $0.applied.append(Applied(activityKey: activityKey, order: order, instance: instance)) }
    }
}
