import Foundation
import Liveline
import Testing
@testable import LivelineBridge

@Suite struct OutboxTests {
    typealias F = StoreFixture

    static func push(_ activityKey: String = "order-1", due offset: TimeInterval = 0) -> OutboxPush {
        OutboxPush(
            activityKey: activityKey, payload: Array("{\"aps\":{}}".utf8),
            headers: PushHeaders(topic: "com.example.push-type.liveactivity", priority: .high, expiration: 0),
            dueAt: F.epoch + Millis(offset * 1000)
        )
    }

    @Test(arguments: StoreKind.allCases)
    func retriesThenDeadLetterThenDelete(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            try await store.upsertActivity(
                RegisteredActivity(activityKey: "order-1", updateToken: "aa", source: "delivery", updatedAt: F.epoch))
            let id = try await store.enqueuePush(Self.push())
            var now = F.epoch
            for attempt in 1...3 {
                let claimed = try await store.claimDuePushes(limit: 10, instance: "i1", lease: .seconds(10), now: now)
                #expect(claimed.map(\.id) == [id])
                #expect(claimed.first?.attempts == attempt - 1)
                #expect(claimed.first?.push.payload == Self.push().payload)
                #expect(claimed.first?.push.headers == Self.push().headers)
                let answer = PushAnswer(at: now, status: 500, reason: "InternalServerError")
                let outcome =
                    try await store.writePushOutcomes([
                        .failed(
                            id, answer: answer, error: "APNs 500 InternalServerError",
                            retryAt: now + 2000, maxAttempts: 3
                        )
                    ]).first ?? nil
                if attempt < 3 {
                    #expect(outcome == .retryScheduled(attempts: attempt))
                    // Not due before the retry time.
                    #expect(
                        try await store.claimDuePushes(
                            limit: 10, instance: "i1", lease: .seconds(10), now: now + 1000
                        ).isEmpty)
                } else {
                    guard case .deadLettered? = outcome else {
                        Issue.record("expected a dead letter, got \(outcome)")
                        return
                    }
                }
                now = now + 2000
            }
            #expect(
                try await store.claimDuePushes(
                    limit: 10, instance: "i1", lease: .seconds(10), now: now + 60_000
                ).isEmpty)
            let letters = try await store.deadLetters(limit: 10)
            #expect(letters.count == 1)
            #expect(letters.first?.attempts == 3)
            #expect(letters.first?.lastError == "APNs 500 InternalServerError")
            #expect(letters.first?.push.headers == Self.push().headers)
            #expect(letters.first?.push.dueAt == F.epoch + 4000)
            let activity = try await store.activity("order-1")
            #expect(activity?.lastPush?.status == 500)
            #expect(activity?.lastError == "APNs 500 InternalServerError")
            let letter = try #require(letters.first)
            #expect(try await store.deleteDeadLetter(letter.id))
            #expect(try await !store.deleteDeadLetter(letter.id))
            #expect(try await store.counts() == StoreCounts(pendingEvents: 0, outbox: 0, deadLetters: 0, activities: 1))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func claimsDoNotOverlapAndExpiredClaimsReturn(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            var ids: [Int64] = []
            for key in (0..<6).map({ "a\($0)" }) + ["later"] {
                _ = try await store.registerActivity(
                    ActivityRegistration(
                        activityKey: key, targets: ActivityTargets(updateToken: "aa"), source: "delivery"),
                    now: F.epoch
                )
            }
            for index in 0..<6 { ids.append(try await store.enqueuePush(Self.push("a\(index)", due: Double(index)))) }
            _ = try await store.enqueuePush(Self.push("later", due: 3600))
            let now = F.epoch + 10_000
            async let one = store.claimDuePushes(limit: 4, instance: "one", lease: .seconds(10), now: now)
            async let two = store.claimDuePushes(limit: 4, instance: "two", lease: .seconds(10), now: now)
            let (first, second) = try await (one, two)
            #expect(Set(first.map(\.id)).isDisjoint(with: second.map(\.id)))
            #expect(Set(first.map(\.id) + second.map(\.id)) == Set(ids))
            let sent = try #require(first.first)
            _ = try await store.writePushOutcomes([
                .sent(sent.id, answer: PushAnswer(at: now, status: 200, apnsID: "A-1"))
            ])
            // Claims of a dead instance come back after their lease; the sent one does not.
            let retaken = try await store.claimDuePushes(
                limit: 10, instance: "three", lease: .seconds(10), now: now + 11_000)
            #expect(Set(retaken.map(\.id)) == Set(ids).subtracting([sent.id]))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anActivitysPushesGoOneAtATimeInOrderAndWaitForTheirToken(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            _ = try await store.registerActivity(
                ActivityRegistration(
                    activityKey: "order-1", targets: ActivityTargets(pushToStartToken: "5757"), source: "delivery"),
                now: F.epoch
            )
            var start = Self.push("order-1", due: 0)
            start.kind = .start
            let startID = try await store.enqueuePush(start)
            let updateID = try await store.enqueuePush(Self.push("order-1", due: 0))
            let now = F.epoch + 10_000
            // Only the oldest, even though both are due.
            let first = try await store.claimDuePushes(limit: 10, instance: "one", lease: .seconds(10), now: now)
            #expect(first.map(\.id) == [startID])
            #expect(first.first?.target.pushToStartToken == "5757")
            _ = try await store.writePushOutcomes([.sent(startID, answer: PushAnswer(at: now, status: 200))])
            // The update needs an update token, which the app has not reported yet.
            #expect(try await store.claimDuePushes(limit: 10, instance: "one", lease: .seconds(10), now: now).isEmpty)
            #expect(
                try await !store.registerActivity(
                    ActivityRegistration(
                        activityKey: "order-1", targets: ActivityTargets(updateToken: "abcd", pushToStartToken: "5757"),
                        source: "delivery"), now: now
                ))
            let second = try await store.claimDuePushes(limit: 10, instance: "one", lease: .seconds(10), now: now)
            #expect(second.map(\.id) == [updateID])
            #expect(second.first?.target == ActivityTargets(updateToken: "abcd", pushToStartToken: "5757"))
            // A dead token: the push goes to the dead letters and the token is forgotten.
            let letter = try await store.writePushOutcomes([
                .undeliverable(
                    updateID, answer: PushAnswer(at: now, status: 410, reason: "Unregistered"), error: "gone",
                    forgetToken: true, now: now
                )
            ])
            guard case .deadLettered?? = letter.first else {
                Issue.record("expected a dead letter, got \(letter)")
                return
            }
            #expect(try await store.activity("order-1")?.updateToken == nil)
            #expect(try await store.deadLetters(limit: 10).map(\.push.kind) == [.update])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func outcomesOfAWholePassAreRecordedTogether(_ kind: StoreKind) async throws {
        try await F.withStore(kind) { store in
            for key in ["a", "b", "c"] {
                _ = try await store.registerActivity(
                    ActivityRegistration(
                        activityKey: key, targets: ActivityTargets(updateToken: "aa"), source: "delivery"),
                    now: F.epoch
                )
            }
            let a = try await store.enqueuePush(Self.push("a")), b = try await store.enqueuePush(Self.push("b"))
            let c = try await store.enqueuePush(Self.push("c"))
            let now = F.epoch + 1000
            let results = try await store.writePushOutcomes([
                .sent(a, answer: PushAnswer(at: now, status: 200)),
                .failed(
                    b, answer: PushAnswer(at: now, status: 503, reason: "ServiceUnavailable"), error: "503",
                    retryAt: now, maxAttempts: 3),
                .undeliverable(
                    c, answer: PushAnswer(at: now, status: 410, reason: "Unregistered"), error: "410",
                    forgetToken: true, now: now),
            ])
            #expect(results.count == 3)
            #expect(results[0] == nil)
            #expect(results[1] == .retryScheduled(attempts: 1))
            guard case .deadLettered? = results[2] else {
                Issue.record("expected a dead letter, got \(String(describing: results[2]))")
                return
            }
            #expect(try await store.activity("a")?.lastPush?.status == 200)
            #expect(try await store.activity("c")?.updateToken == nil)
            #expect(try await store.counts() == StoreCounts(pendingEvents: 0, outbox: 1, deadLetters: 1, activities: 3))
        }
    }
}
