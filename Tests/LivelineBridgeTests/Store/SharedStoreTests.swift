import Foundation
import Testing
@testable import LivelineBridge

/// Two bridge instances, each with its own open store (its own connection or pool), working
/// the same inbox the way the dispatcher will: claim, apply in order, mark, release.
@Suite struct SharedStoreTests {
    typealias F = StoreFixture

    @Test(arguments: StoreKind.allCases)
    func twoInstancesApplyEveryEventOnceInOrder(_ kind: StoreKind) async throws {
        try await F.withLocation(kind) { location in
            let one = try await SQLStore.open(location, now: F.epoch)
            let two = try await SQLStore.open(location, now: F.epoch)
            let events = (0..<200).map { F.event("e\($0)", activity: "act-\($0 % 20)", order: Int64($0)) }
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

            let applied = await log.applied
            #expect(applied.count == events.count)
            #expect(Set(applied.map(\.order)).count == events.count, "an event was applied twice")
            for (activity, orders) in Dictionary(grouping: applied, by: \.activity).mapValues({ $0.map(\.order) }) {
                #expect(orders == orders.sorted(), "\(activity) applied out of order: \(orders)")
            }
            let overlaps = await log.overlaps
            #expect(overlaps.isEmpty, "activities held by both instances: \(overlaps)")
        }
    }

    private static func work(_ store: SQLStore, instance: String, log: ApplyLog, total: Int) async throws {
        while await log.applied.count < total {
            let claimed = try await store.claimNextEvents(limit: 3, instance: instance, lease: .seconds(60), now: F.epoch)
            if claimed.isEmpty {
                try await Task.sleep(for: .milliseconds(1))
                continue
            }
            for activity in claimed {
                await log.enter(activity.activityKey, instance: instance)
                for stored in activity.events {
                    await log.apply(activity.activityKey, order: stored.event.orderKey, instance: instance)
                }
                let marked = try await store.markApplied(activity.events.map(\.sequence), instance: instance)
                #expect(marked == activity.events.count)
                await log.leave(activity.activityKey)
                try await store.releaseActivities([activity.activityKey], instance: instance)
            }
        }
    }
}

/// What both instances did, in one place, with any activity held by two at once.
private actor ApplyLog {
    struct Applied: Sendable {
        var activity: String
        var order: Int64
        var instance: String
    }

    private(set) var applied: [Applied] = []
    private(set) var overlaps: [String] = []
    private var holders: [String: String] = [:]

    func enter(_ activity: String, instance: String) {
        if let holder = holders[activity], holder != instance { overlaps.append(activity) }
        holders[activity] = instance
    }

    func leave(_ activity: String) { holders[activity] = nil }

    func apply(_ activity: String, order: Int64, instance: String) {
        applied.append(Applied(activity: activity, order: order, instance: instance))
    }
}
