import Foundation

/// SQLite: one connection to a file, in WAL mode with `synchronous=FULL` (`NORMAL` for the one
/// transaction of a prune batch, `CommitDurability.processCrash`), on a thread of its own
/// (`SQLiteConnection`), and a second that only checkpoints the log (`SQLiteCheckpointer`).
///
/// One process owns the file. Transactions are serialized by the connection and start with
/// `BEGIN IMMEDIATE`, so the claim semantics match PostgreSQL's row locks: nobody else writes
/// between a claim's SELECT and its UPDATE.
final class SQLiteDriver: SQLDriver {
    let name: String
    let dialect = SQLDialect.sqlite
    /// On a thread of its own: a statement waiting for another connection's write lock (busy
    /// timeout) or for an fsync blocks only this store, never a thread that other work needs.
    private let connection: SQLiteConnection
    private let checkpointer: SQLiteCheckpointer
    private let checkpoints: Task<Void, Never>

    private init(name: String, connection: SQLiteConnection, checkpointer: SQLiteCheckpointer) {
        self.name = name
        self.connection = connection
        self.checkpointer = checkpointer
        checkpoints = Task { await checkpointer.run() }
    }

    /// Opens (and creates, the first time) the database file at `path`.
    /// The store connection's page cache, in KiB (SQLite's default is 2 MiB). Every webhook
    /// touches pages all over the event-id and activity indexes, and a prune batch walks the
    /// oldest rows' pages of the same indexes: with 2 MiB the batches pushed the webhooks' pages
    /// out, and every webhook was slower while a round ran (p99 1.3–1.4× outside the rounds);
    /// with 16 MiB, and the checkpointer's 10 ms pace while the log fills fast, it was 1.14×
    /// over a quiet hour, the rest being the deletions' own work on this connection's thread
    /// (64 MiB did no better; `scripts/soak/bridge-soak.sh`, BENCHMARKS.md). The cost is up to
    /// 16 MiB of the bridge's memory.
    static let cacheKiB = 16_384

    static func open(path: String) async throws -> SQLiteDriver {
        let name = "SQLite at \(path)"
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            throw StoreError(.open, store: name, cause: "the directory \(directory) does not exist")
        }
        let connection = SQLiteConnection(name: name)
        do {
            try await connection.open(path: path)
            // Another connection (a `liveline bridge dead-letters` command, a second instance)
            // may hold the write lock; wait for it instead of failing at once. Its holder can be
            // slow to finish on a machine that is busy with other work, so the wait is long; a
            // sender whose webhook waits that long retries anyway.
            try await connection.execute("PRAGMA busy_timeout=15000", [])
            // WAL: readers do not block the writer, and a commit appends to the log instead of
            // rewriting pages. synchronous=FULL: every commit fsyncs the log, so a webhook we
            // answered 2xx survives power loss, not only a process crash. NORMAL would fsync only
            // at checkpoints and could lose the last commits on power loss; group commit
            // (InboxWriter) is what keeps FULL cheap.
            try await connection.execute("PRAGMA journal_mode=WAL", [])
            try await connection.execute("PRAGMA synchronous=FULL", [])
            // On macOS an fsync leaves the write in the drive's cache, where power loss takes
            // it; fullfsync makes SQLite sync with F_FULLFSYNC, so FULL keeps there the promise
            // it keeps on Linux. Systems without F_FULLFSYNC ignore it.
            try await connection.execute("PRAGMA fullfsync=ON", [])
            // Statement journals (the undo of one statement inside a transaction, e.g. a
            // multi-row insert) in memory: past 64 KiB SQLite would spill them to a temporary
            // file, writing every page a batch touches a second time. They are never needed
            // after a crash, so memory loses nothing.
            try await connection.execute("PRAGMA temp_store=MEMORY", [])
            // A negative size is in KiB.
            try await connection.execute("PRAGMA cache_size=-\(Self.cacheKiB)", [])
            // Checkpoints run on the checkpointer's connection, not inside a commit here.
            try await connection.execute("PRAGMA wal_autocheckpoint=\(SQLiteCheckpointer.backstopPages)", [])
            let checkpointer = try await SQLiteCheckpointer.open(path: path, name: name)
            return SQLiteDriver(name: name, connection: connection, checkpointer: checkpointer)
        } catch {
            await connection.close()
            throw error.kind == .query ? StoreError(.open, store: name, cause: error.cause) : error
        }
    }

    func transaction<T: Sendable>(
        durability: CommitDurability, _ body: nonisolated(nonsending) @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        try await connection.transaction(durability: durability, body)
    }

    var taskExecutor: (any TaskExecutor)? { connection.taskExecutor }

    /// Stops the checkpoints first, so that the store's connection, closing last, folds the
    /// log into the file and removes it.
    func close() async throws {
        checkpoints.cancel()
        await checkpoints.value
        await checkpointer.close()
        await connection.close()
    }
}
