import Foundation
import NIOCore
import NIOPosix
import SQLiteNIO

/// SQLite through sqlite-nio: one connection to a file, in WAL mode with `synchronous=FULL`.
///
/// One process owns the file. Transactions are serialized by a `TransactionGate` and start
/// with `BEGIN IMMEDIATE`, so the claim semantics match PostgreSQL's row locks: nobody else
/// writes between a claim's SELECT and its UPDATE.
final class SQLiteDriver: SQLDriver {
    let name: String
    let dialect = SQLDialect.sqlite
    private let connection: SQLiteConnection
    /// The connection's own thread: a statement waiting for another connection's write lock
    /// (busy timeout) blocks only this store, never a thread that other stores need to finish
    /// the transaction it waits for.
    private let thread: NIOThreadPool
    private let gate = TransactionGate()

    private init(name: String, connection: SQLiteConnection, thread: NIOThreadPool) {
        self.name = name
        self.connection = connection
        self.thread = thread
    }

    /// Opens (and creates, the first time) the database file at `path`.
    static func open(path: String) async throws -> SQLiteDriver {
        let name = "SQLite at \(path)"
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            throw StoreError(.open, store: name, cause: "the directory \(directory) does not exist")
        }
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: thread, on: MultiThreadedEventLoopGroup.singleton.any()
            )
        } catch {
            try? await thread.shutdownGracefully()
            throw StoreError(.open, store: name, cause: "\(error)")
        }
        let driver = SQLiteDriver(name: name, connection: connection, thread: thread)
        do {
            // Another connection (a `liveline bridge dead-letters` command, a second instance)
            // may hold the write lock; wait for it instead of failing at once. Its holder can be
            // slow to finish on a machine that is busy with other work, so the wait is long; a
            // sender whose webhook waits that long retries anyway.
            _ = try await connection.query("PRAGMA busy_timeout=15000")
            // WAL: readers do not block the writer, and a commit appends to the log instead of
            // rewriting pages. synchronous=FULL: every commit fsyncs the log, so a webhook we
            // answered 2xx survives power loss, not only a process crash. NORMAL would fsync only
            // at checkpoints and could lose the last commits on power loss; group commit
            // (InboxWriter) is what keeps FULL cheap.
            _ = try await connection.query("PRAGMA journal_mode=WAL")
            _ = try await connection.query("PRAGMA synchronous=FULL")
        } catch {
            try? await driver.close()
            throw StoreError(.open, store: name, cause: "\(error)")
        }
        return driver
    }

    /// Runs `body` between `BEGIN IMMEDIATE` and `COMMIT`; on any error, including the
    /// caller's cancellation (sqlite-nio ends a cancelled task's statements), it rolls back.
    /// The `ROLLBACK` runs in a task of its own, which the cancellation does not reach: left
    /// undone, the connection would stay inside the transaction and every later one would
    /// fail with "cannot start a transaction within a transaction".
    func transaction<T: Sendable>(_ body: @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        try await gate.withLock {
            let tx = Transaction(connection: connection, name: name)
            do {
                try await tx.run("BEGIN IMMEDIATE")
                let result = try await body(tx)
                try await tx.run("COMMIT")
                return result
            } catch {
                let connection = self.connection
                // An error here only says no transaction was open (BEGIN itself failed).
                _ = try? await Task { try await connection.query("ROLLBACK") }.value
                throw error
            }
        }
    }

    func close() async throws {
        try await connection.close()
        try await thread.shutdownGracefully()
    }

    private struct Transaction: SQLTransaction {
        let connection: SQLiteConnection
        let name: String

        /// `$N` → `?N`, byte for byte (on every statement, so not through Foundation).
        static func sqlitePlaceholders(_ sql: String) -> String {
            var bytes = Array(sql.utf8)
            for index in bytes.indices where bytes[index] == UInt8(ascii: "$") { bytes[index] = UInt8(ascii: "?") }
            return String(decoding: bytes, as: UTF8.self)
        }

        func run(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            // SQLite numbers `?NNN` placeholders by their digits; `$NNN` would be numbered by
            // first appearance instead.
            let statement = Self.sqlitePlaceholders(sql)
            let rows: [SQLiteRow]
            do {
                rows = try await connection.query(statement, binds.map(Self.sqlite))
            } catch {
                throw StoreError(.query, store: name, cause: "\(error)")
            }
            return rows.map { row in SQLRow(values: row.columns.map { Self.value($0.data) }) }
        }

        private static func sqlite(_ value: SQLValue) -> SQLiteData {
            switch value {
            case .int(let value): .integer(SQLiteInt64(value))
            case .text(let value): .text(value)
            case .bytes(let value): .blob(ByteBuffer(bytes: value))
            case .null: .null
            }
        }

        private static func value(_ data: SQLiteData) -> SQLValue {
            switch data {
            case .integer(let value): .int(Int64(value))
            // No REAL columns in the schema; an aggregate that yields one is truncated.
            case .float(let value): Int64(exactly: value.rounded(.towardZero)).map(SQLValue.int) ?? .null
            case .text(let value): .text(value)
            case .blob(let buffer): .bytes(Array(buffer.readableBytesView))
            case .null: .null
            }
        }
    }
}
