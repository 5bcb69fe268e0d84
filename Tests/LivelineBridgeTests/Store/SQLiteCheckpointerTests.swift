import Foundation
import LivelineTestSupport
import Testing
@testable import LivelineBridge

/// SQLite used to copy its log back into the file inside whichever commit took the log past
/// 1,000 pages, and every webhook queued behind that commit waited for the copy and its fsync.
/// The checkpointer's own connection does it beside the writes: the file takes in what was
/// committed long before the log is that large, and closing the store leaves no log behind.
@Suite struct SQLiteCheckpointerTests {
    @Test func theLogIsCopiedBackBesideTheWritesAndFoldedAtClose() async throws {
        try await StoreFixture.withLocation(.sqlite) { location in
            guard case .sqlite(let path) = location else { return }
            let store = try await SQLStore.open(location, now: StoreFixture.epoch)
            let before = Self.size(path)
            // About 300 pages of log: under SQLite's own 1,000-page checkpoint and far under
            // the store connection's backstop, so only the checkpointer copies them now.
            try await store.transaction { tx in
                try await tx.run("CREATE TABLE filler (b BLOB)")
                for _ in 0..<300 {
                    try await tx.run("INSERT INTO filler VALUES ($1)", [.bytes(Array(repeating: 7, count: 4000))])
                }
            }
            try await eventually("the committed pages to reach the database file", within: 30) {
                Self.size(path) > before + 1_000_000
            }
            try await store.close()
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            let reopened = try await SQLStore.open(location, now: StoreFixture.epoch)
            let rows = try await reopened.transaction { tx in try await tx.run("SELECT count(*) FROM filler")[0].int(0)
            }
            #expect(rows == 300)
            try await reopened.close()
        }
    }

    /// While the log fills fast the loop checkpoints every 10 ms; an idle log is looked at
    /// every 100 ms.
    @Test func itCheckpointsOftenOnlyWhileTheLogFillsFast() {
        let idle = SQLiteCheckpointer.interval, busy = SQLiteCheckpointer.busyInterval
        #expect(SQLiteCheckpointer.pause(copied: 0, copiedBefore: 0) == idle)
        #expect(SQLiteCheckpointer.pause(copied: 1_000, copiedBefore: 990) == idle)
        #expect(SQLiteCheckpointer.pause(copied: 1_000, copiedBefore: 800) == busy)
        #expect(
            SQLiteCheckpointer.pause(copied: 300, copiedBefore: 4_000) == busy,
            "the log started over and 300 pages were copied since")
        #expect(SQLiteCheckpointer.pause(copied: 20, copiedBefore: 4_000) == idle)
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
