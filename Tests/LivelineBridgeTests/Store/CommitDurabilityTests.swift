import Foundation
import Testing
@testable import LivelineBridge

/// A `.processCrash` transaction commits without waiting for the disk, and only it: the
/// setting is the connection's (SQLite) or the server session's (PostgreSQL), so one left
/// behind would quietly make the next webhook's 2xx undoable by a power loss.
@Suite struct CommitDurabilityTests {
    @Test(arguments: StoreKind.allCases)
    func onlyAProcessCrashTransactionSkipsTheWaitForTheDisk(_ kind: StoreKind) async throws {
        try await StoreFixture.withStore(kind) { store in
            @Sendable func setting(_ durability: CommitDurability) async throws -> String {
                try await store.transaction(durability: durability) { tx in
                    switch kind {
                    case .sqlite:
                        ["off", "normal", "full", "extra"][Int(try await tx.run("PRAGMA synchronous")[0].int(0))]
                    case .postgres: try await tx.run("SHOW synchronous_commit")[0].text(0)
                    }
                }
            }
            let (waits, skips) = kind == .sqlite ? ("full", "normal") : ("on", "off")
            let first = try await setting(.powerLoss)
            let relaxed = try await setting(.processCrash)
            let after = try await setting(.powerLoss)
            #expect(first == waits)
            #expect(relaxed == skips)
            #expect(after == waits, "the setting ends with its transaction")

            struct Refused: Error {}
            await #expect(throws: (any Error).self) {
                try await store.transaction(durability: .processCrash) { tx in
                    try await tx.run("SELECT 1")
                    throw Refused()
                }
            }
            let afterRollback = try await setting(.powerLoss)
            #expect(afterRollback == waits, "and with one rolled back")
        }
    }
}
