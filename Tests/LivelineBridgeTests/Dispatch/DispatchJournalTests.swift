import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// The dispatcher's journal of recent steps: what each event's step did and decided, bounded
/// to the newest events and activities.
@Suite struct DispatchJournalTests {
    static func commit(
        _ key: String, applied: [Int64], superseded: [(Int64, String)] = [], pushes: Int, at seconds: Double
    ) -> DispatchCommit {
        var commit = DispatchCommit(
            activityKey: key, applied: applied, superseded: superseded.map { (sequence: $0.0, reason: $0.1) },
            lifecycle: .active,
            engineState: [], nextDeadline: nil,
            pushes: (0..<pushes).map { _ in
                OutboxPush(
                    activityKey: key, payload: Array(#"{"aps":{}}"#.utf8),
                    headers: PushHeaders(topic: nil, priority: .low, expiration: 0),
                    dueAt: Millis(seconds * 1000))
            },
            now: Millis(seconds * 1000))
        commit.pushReasons = (0..<pushes).map { "beat b\($0)" }
        commit.ignored = applied.count > 1 ? [applied[1]] : []
        return commit
    }

    @Test func eachEventKeepsItsStepAndTheOldestAreForgotten() async {
        let journal = DispatchJournal(capacity: 2)
        await journal.remember([Self.commit("A", applied: [1, 2], superseded: [(3, "older")], pushes: 1, at: 10)])
        // Capacity 2: events 2 and 3 are kept, 1 is forgotten.
        #expect(await journal.step(of: 1) == nil)
        #expect(await journal.step(of: 2)?.outcome == .ignored)
        #expect(await journal.step(of: 3)?.outcome == .superseded("older"))
        #expect(await journal.step(of: 3)?.pushes.map(\.reason) == ["beat b0"])

        // A later step of A that pushed: found after the first step's time, not before.
        await journal.remember([Self.commit("A", applied: [4], pushes: 1, at: 20)])
        #expect(
            await journal.pushes(of: "A", after: 10_000)?.at == 20_000
        )
        #expect(await journal.pushes(of: "A", after: 20_000) == nil)
        // Activities are bounded too.
        await journal.remember([
            Self.commit("B", applied: [5], pushes: 1, at: 30), Self.commit("C", applied: [6], pushes: 1, at: 40),
        ])
        #expect(await journal.pushes(of: "A", after: .min) == nil)
        #expect(await journal.pushes(of: "C", after: .min) != nil)
    }
}
