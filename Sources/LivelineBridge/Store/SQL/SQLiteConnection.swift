import VaporCSQLite

/// One SQLite connection on a thread of its own, with its statements kept prepared.
///
/// The actor's executor is a `SQLiteExecutor`, a thread of its own, so everything that touches
/// the database handle (prepare, bind, step, fsync at `COMMIT`, a busy wait for another
/// process's write lock) runs there, never on Swift's cooperative pool. A transaction's body is
/// `nonisolated(nonsending)`: it runs on this executor too, so each of its statements is a plain
/// call, not a hop to another thread and back.
///
/// Transactions run one at a time, first come first served: a body that suspends (it awaits
/// something else) keeps the connection until it returns, as SQLite's one open transaction per
/// connection requires.
actor SQLiteConnection {
    /// Statements kept prepared; the least recently used is finalized past this many.
    static let statementCapacity = 128

    nonisolated let name: String
    private let executor: SQLiteExecutor
    // Unchecked for the deinit alone, which reads them when no job of the actor can run; all
    // other access is the actor's.
    nonisolated(unsafe) private var handle: OpaquePointer?
    nonisolated(unsafe) private var statements: [String: (statement: SQLiteStatement, lastUse: UInt64)] = [:]
    private var uses: UInt64 = 0
    private var inTransaction = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The connection's thread, for callers that prefer to run there.
    nonisolated var taskExecutor: any TaskExecutor { executor }

    /// A connection, not yet open, with a thread of its own named `thread`.
    init(name: String, thread: String = "liveline-sqlite") {
        self.name = name
        executor = SQLiteExecutor(name: thread)
    }

    /// Finalizes the statements and closes the file, then lets the thread end. Every job of the
    /// actor keeps it alive, so none runs or waits now and the handle is this deinit's alone,
    /// whichever thread released the connection. (An `isolated deinit`, which would hop to the
    /// connection's thread first, needs macOS 15.4, above the package's floor.)
    deinit {
        for entry in statements.values { sqlite_nio_sqlite3_finalize(entry.statement.handle) }
        sqlite_nio_sqlite3_close_v2(handle)
        executor.stop()
    }

    /// Opens (creating) the file at `path`.
    func open(path: String) throws(StoreError) {
        var opened: OpaquePointer?
        let code = sqlite_nio_sqlite3_open_v2(
            path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let opened else {
            let message =
                opened.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) }
                ?? String(cString: sqlite_nio_sqlite3_errstr(code))
            sqlite_nio_sqlite3_close_v2(opened)
            throw StoreError(.open, store: name, cause: message)
        }
        handle = opened
        sqlite_nio_sqlite3_extended_result_codes(opened, 1)
    }

    /// Runs `body` between `BEGIN IMMEDIATE` and `COMMIT`, rolling back when it throws. The
    /// `ROLLBACK` is a plain call on this thread, which no cancellation reaches: a connection
    /// left inside a transaction would fail every later one.
    ///
    /// The connection runs with `synchronous=FULL` (every commit fsyncs the log). A
    /// `.processCrash` transaction runs with `NORMAL` instead: in WAL mode its commit is
    /// written to the log without an fsync, and the next `FULL` commit's fsync covers it.
    func transaction<T: Sendable>(
        durability: CommitDurability, _ body: nonisolated(nonsending) @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        if inTransaction { await withCheckedContinuation { waiting.append($0) } }
        inTransaction = true
        defer {
            if waiting.isEmpty { inTransaction = false } else { waiting.removeFirst().resume() }
        }
        if durability == .processCrash {
            try execute("PRAGMA synchronous=NORMAL", [])
        }
        defer {
            if durability == .processCrash { _ = try? execute("PRAGMA synchronous=FULL", []) }
        }
        do {
            try execute("BEGIN IMMEDIATE", [])
            let result = try await body(Transaction(connection: self))
            try execute("COMMIT", [])
            return result
        } catch {
            _ = try? execute("ROLLBACK", [])
            throw error
        }
    }

    /// Runs one statement (written with `$1`, `$2`, … placeholders) and returns its rows.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws(StoreError) -> [SQLRow] {
        guard let handle else { throw StoreError(.query, store: name, cause: "the connection is closed") }
        let statement = try prepared(sql, handle)
        do {
            return try statement.run(binds) { _ in String(cString: sqlite_nio_sqlite3_errmsg(handle)) }
        } catch {
            throw StoreError(.query, store: name, cause: error.message)
        }
    }

    /// Finalizes every statement and closes the file. Calls that come later fail with "the
    /// connection is closed".
    func close() {
        for entry in statements.values { sqlite_nio_sqlite3_finalize(entry.statement.handle) }
        statements = [:]
        sqlite_nio_sqlite3_close_v2(handle)
        handle = nil
    }

    private func prepared(_ sql: String, _ handle: OpaquePointer) throws(StoreError) -> SQLiteStatement {
        uses &+= 1
        // One hash of the text (a multi-row insert's runs to kilobytes), not one to read and one to mark.
        if let index = statements.index(forKey: sql) {
            statements.values[index].lastUse = uses
            return statements.values[index].statement
        }
        if statements.count >= Self.statementCapacity,
            let oldest = statements.min(by: { $0.value.lastUse < $1.value.lastUse })
        {
            sqlite_nio_sqlite3_finalize(oldest.value.statement.handle)
            statements[oldest.key] = nil
        }
        var prepared: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(
            handle, Self.sqlitePlaceholders(sql), -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            throw StoreError(.query, store: name, cause: String(cString: sqlite_nio_sqlite3_errmsg(handle)))
        }
        let statement = SQLiteStatement(handle: prepared)
        statements[sql] = (statement, uses)
        return statement
    }

    /// `$N` → `?N`, byte for byte: SQLite numbers `?NNN` by its digits, while `$NNN` would be
    /// numbered by first appearance.
    static func sqlitePlaceholders(_ sql: String) -> String {
        var bytes = Array(sql.utf8)
        for index in bytes.indices where bytes[index] == UInt8(ascii: "$") { bytes[index] = UInt8(ascii: "?") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The statements of the open transaction. They run on the connection's executor, where the
    /// transaction's body already is; a cancelled task's next statement throws instead, so the
    /// transaction rolls back.
    private struct Transaction: SQLTransaction {
        let connection: SQLiteConnection

        nonisolated(nonsending) func run(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try Task.checkCancellation()
            return try await connection.execute(sql, binds)
        }
    }
}
