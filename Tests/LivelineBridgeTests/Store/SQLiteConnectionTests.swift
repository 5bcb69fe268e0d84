import Foundation
import Testing
@testable import LivelineBridge

/// The SQLite driver's own machinery: prepared statements kept and evicted, values bound and
/// read back exactly, errors with SQLite's message, and a connection that answers "closed"
/// after `close()` instead of leaving its caller waiting.
@Suite struct SQLiteConnectionTests {
    @Test func moreDistinctStatementsThanTheCacheHoldsAllRunAndRunAgain() async throws {
        try await StoreFixture.withStore(.sqlite) { store in
            let count = SQLiteConnection.statementCapacity * 2 + 7
            for round in 0..<2 {
                let sums = try await store.transaction { tx in
                    var sums: [Int64] = []
                    for index in 0..<count {
                        sums.append(try await tx.run("SELECT \(index) + $1", [.int(1000)])[0].int(0))
                    }
                    return sums
                }
                #expect(sums == (0..<count).map { Int64($0 + 1000) }, "round \(round)")
            }
        }
    }

    @Test func valuesComeBackAsTheyWereBound() async throws {
        try await StoreFixture.withStore(.sqlite) { store in
            let rows = try await store.transaction { tx in
                try await tx.run("CREATE TABLE v (t TEXT, b BLOB, i BIGINT, n TEXT)")
                try await tx.run(
                    "INSERT INTO v VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)",
                    [
                        .text(""), .bytes([]), .int(.min), .null, .text("é ✓ \u{0}x"), .bytes([0, 255, 7]), .int(.max),
                        .text("'; DROP TABLE v; --"),
                    ]
                )
                return try await tx.run("SELECT t, b, i, n FROM v ORDER BY rowid")
            }
            #expect(
                rows.map(\.values) == [
                    [.text(""), .bytes([]), .int(.min), .null],
                    [.text("é ✓ \u{0}x"), .bytes([0, 255, 7]), .int(.max), .text("'; DROP TABLE v; --")],
                ])
        }
    }

    @Test func aFailingStatementNamesSQLitesReasonAndTheConnectionGoesOn() async throws {
        try await StoreFixture.withStore(.sqlite) { store in
            try await store.transaction { tx in try await tx.run("CREATE TABLE once (id BIGINT PRIMARY KEY)") }
            await #expect {
                try await store.transaction { tx in
                    try await tx.run("INSERT INTO once (id) VALUES (1)")
                    try await tx.run("INSERT INTO once (id) VALUES (1)")
                }
            } throws: { error in
                let error = try #require(error as? StoreError)
                return error.kind == .query && error.cause.contains("UNIQUE constraint failed: once.id")
            }
            let ids = try await store.transaction { tx in try await tx.run("SELECT id FROM once").map { try $0.int(0) }
            }
            #expect(ids.isEmpty, "the failed transaction's first insert was rolled back")
        }
    }

    /// The bridge's loops run on the SQLite thread (a task executor preference) so their store
    /// calls do not hop: calls from there, concurrent ones included, run and answer as from
    /// anywhere else; PostgreSQL has no such thread.
    @Test func callsFromTheStoresOwnThreadRunAndAnswer() async throws {
        try await StoreFixture.withStore(.sqlite) { store in
            let executor = try #require(store.taskExecutor)
            let stored = try await withTaskExecutorPreference(executor) {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for batch in 0..<8 {
                        group.addTask {
                            let events = (0..<25).map {
                                StoreFixture.event(
                                    "pref-\(batch)-\($0)", activityKey: "order-\(batch)", order: Int64($0))
                            }
                            return try await store.insertEvents(events).count
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            #expect(stored == 200)
            #expect(try await store.counts().pendingEvents == 200)
        }
        try await StoreFixture.withStore(.postgres) { store in #expect(store.taskExecutor == nil) }
    }

    /// `top -H`, Activity Monitor and debuggers show which of the bridge's threads is busy: the
    /// store's statements run on a thread that carries its own name, as the kernel has it.
    @Test func theStoresThreadIsNamedWhereTopShowsIt() async throws {
        try await StoreFixture.withStore(.sqlite) { store in
            let executor = try #require(store.taskExecutor)
            let name = await withTaskExecutorPreference(executor) { Self.currentThreadName() }
            #expect(name == "liveline-sqlite")
        }
    }

    /// The checkpoints' thread too, found among the process's threads.
    @Test(.enabled(if: processThreadNames() != nil, "lists the process's threads through /proc, which only Linux has"))
    func theCheckpointThreadIsNamedWhereTopShowsIt() async throws {
        try await StoreFixture.withStore(.sqlite) { _ in
            #expect(Self.processThreadNames()?.contains("liveline-ckpt") == true)
        }
    }

    /// The calling thread's name as the kernel keeps it.
    private static func currentThreadName() -> String? {
        #if os(Linux)
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines)
        #else
            var buffer = [CChar](repeating: 0, count: 64)
            guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #endif
    }

    /// The names of all the process's threads, from /proc; nil where there is none.
    private static func processThreadNames() -> [String]? {
        #if os(Linux)
            guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else {
                return nil
            }
            return tasks.compactMap {
                (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.trimmingCharacters(
                    in: .whitespacesAndNewlines)
            }
        #else
            return nil
        #endif
    }

    @Test func aStoreUsedAfterItClosedSaysSoAndDoesNotHang() async throws {
        try await StoreFixture.withLocation(.sqlite) { location in
            let store = try await SQLStore.open(location, now: StoreFixture.epoch)
            try await store.close()
            let outcome = await withTaskGroup(of: String.self) { group in
                group.addTask {
                    do {
                        _ = try await store.counts()
                        return "answered"
                    } catch {
                        return "\(error)"
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(30))
                    return "still waiting after 30 s"
                }
                let first = await group.next() ?? ""
                group.cancelAll()
                return first
            }
            #expect(outcome.contains("the connection is closed"), "\(outcome)")
        }
    }
}
