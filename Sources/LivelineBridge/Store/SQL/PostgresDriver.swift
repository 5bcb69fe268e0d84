import Foundation
import Logging
import NIOCore
import PostgresNIO

/// PostgreSQL through postgres-nio: a `PostgresClient` pool shared by the store's calls, and by
/// as many bridge instances as share the database. Row locks (`FOR UPDATE SKIP LOCKED`) keep
/// two instances off the same activity or push.
final class PostgresDriver: SQLDriver {
    var taskExecutor: (any TaskExecutor)? { nil }

    let name: String
    let dialect = SQLDialect.postgres
    private let client: PostgresClient
    /// The statements each connection has prepared.
    let statements = PostgresStatementCache()
    private let runTask: Task<Void, Never>
    private let logger = Logger(label: "liveline.store.postgres")

    private init(name: String, client: PostgresClient) {
        self.name = name
        self.client = client
        self.runTask = Task { await client.run() }
    }

    /// Connects once to find out at once whether the server is there and the role may log in
    /// (a pool would retry quietly), creates `location.schema` if it is given, then starts the
    /// pool.
    static func open(_ location: PostgresLocation) async throws -> PostgresDriver {
        let name = "PostgreSQL at \(location.host):\(location.port)"
        var probeConfiguration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable
        )
        probeConfiguration.options.connectTimeout = .seconds(10)
        do {
            let probe = try await PostgresConnection.connect(
                configuration: probeConfiguration, id: 0, logger: Logger(label: "liveline.store.postgres")
            )
            if let schema = location.schema {
                do {
                    try await probe.query(
                        PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(schema)\""),
                        logger: Logger(label: "liveline.store.postgres"))
                } catch {
                    try? await probe.close()
                    throw error
                }
            }
            try? await probe.close()
        } catch {
            throw StoreError(.open, store: name, cause: describe(error))
        }

        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable
        )
        configuration.options.maximumConnections = location.maximumConnections
        if let schema = location.schema {
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        return PostgresDriver(name: name, client: PostgresClient(configuration: configuration))
    }

    /// How many times a transaction runs when PostgreSQL aborts it for a deadlock or a
    /// serialization conflict with another transaction.
    static let conflictAttempts = 5

    /// Runs `body` in a transaction. A deadlock (40P01) or serialization failure (40001) with
    /// another instance's transaction rolls everything back, so the whole body runs again, a
    /// few milliseconds later, up to ``conflictAttempts`` times: an answered push is recorded
    /// rather than left claimed and sent twice.
    func transaction<T: Sendable>(
        durability: CommitDurability, _ body: nonisolated(nonsending) @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await once(durability: durability, body)
            } catch let conflict as TransientConflict {
                guard attempt < Self.conflictAttempts else {
                    throw StoreError(.query, store: name, cause: "\(conflict.cause), \(attempt) times in a row")
                }
                logger.debug(
                    "transaction conflicted with another; running it again", metadata: ["cause": "\(conflict.cause)"])
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...10) * attempt))
                attempt += 1
            }
        }
    }

    /// A `.processCrash` transaction sets `synchronous_commit` off for itself: its commit
    /// returns before the server has flushed its WAL, which a server crash may undo, never half of.
    private func once<T: Sendable>(
        durability: CommitDurability, _ body: nonisolated(nonsending) @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                let transaction = Transaction(
                    connection: connection, statements: statements, name: name, logger: logger)
                if durability == .processCrash { try await transaction.run("SET LOCAL synchronous_commit TO off") }
                return try await body(transaction)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as PostgresTransactionError {
            // The closure's own error comes first; a failed BEGIN/COMMIT/ROLLBACK otherwise.
            if let conflict = error.closureError as? TransientConflict { throw conflict }
            if let closureError = error.closureError as? StoreError { throw closureError }
            if let commitError = error.commitError, Self.isTransientConflict(commitError) {
                throw TransientConflict(cause: Self.describe(commitError))
            }
            let cause = [error.beginError, error.closureError, error.commitError, error.rollbackError]
                .compactMap { $0.map(Self.describe) }.joined(separator: "; ")
            throw StoreError(.query, store: name, cause: cause)
        } catch {
            throw StoreError(.query, store: name, cause: Self.describe(error))
        }
    }

    /// A statement or commit PostgreSQL aborted because of another transaction: the whole
    /// transaction may run again.
    struct TransientConflict: Error {
        var cause: String
    }

    static func isTransientConflict(_ error: any Error) -> Bool {
        guard let state = sqlState(of: error) else { return false }
        return state == "40P01" || state == "40001"
    }

    /// The SQLSTATE of an error the server sent, nil for any other error. postgres-nio reports
    /// a server's error as a `PSQLError`, or as a `PostgresError` from its prepared statements.
    static func sqlState(of error: any Error) -> String? {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
        if case .server(let message)? = error as? PostgresError { return message.fields[.sqlState] }
        return nil
    }

    func close() async throws {
        runTask.cancel()
        await runTask.value
    }

    /// postgres-nio hides the server's message from `description` (it might reach end users);
    /// the store's errors go to operators' logs, so they carry it: "password authentication
    /// failed for user "liveline" (28P01)".
    static func describe(_ error: any Error) -> String {
        if case .server(let server)? = error as? PostgresError, let message = server.fields[.message] {
            let state = server.fields[.sqlState].map { " (\($0))" } ?? ""
            let detail = server.fields[.detail].map { ": \($0)" } ?? ""
            return message + detail + state
        }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (\($0))" } ?? ""
            let detail = error.serverInfo?[.detail].map { ": \($0)" } ?? ""
            return message + detail + state
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }

    private struct Transaction: SQLTransaction {
        let connection: PostgresConnection
        let statements: PostgresStatementCache
        let name: String
        let logger: Logger

        nonisolated(nonsending) func run(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            let prepared: PreparedQuery
            switch statements.choice(for: sql, on: connection) {
            case .unnamed: return try await runUnnamed(sql, binds)
            case .prepared(let known): prepared = known
            case .prepare:
                do {
                    prepared = try await connection.prepare(query: sql).get()
                } catch {
                    throw refusing(sql, error)
                }
                statements.keep(prepared, for: sql, on: connection)
            }
            do {
                // Its rows come in binary, as postgres-nio asks for every statement's, though
                // the cells it makes of them say text (the format its prepare was described in).
                return try await prepared.execute(binds.map(Self.data)).get().map { row in
                    SQLRow(
                        values: try row.map { cell in
                            var cell = cell
                            cell.format = .binary
                            return try Self.value(cell)
                        })
                }
            } catch {
                throw refusing(sql, error)
            }
        }

        /// The error to throw for a failure preparing or running `sql` by name. A conflict with
        /// another transaction is one, as unnamed. Any other error from the server refuses the
        /// text and runs the transaction again (the server has aborted it), where the text runs
        /// unnamed and a genuine error is reported as usual.
        private func refusing(_ sql: String, _ error: any Error) -> any Error {
            if PostgresDriver.isTransientConflict(error) {
                return TransientConflict(cause: PostgresDriver.describe(error))
            }
            guard PostgresDriver.sqlState(of: error) != nil else {
                return StoreError(.query, store: name, cause: PostgresDriver.describe(error))
            }
            statements.refuse(sql, on: connection)
            logger.debug(
                "a prepared statement failed; its text runs unnamed from now on",
                metadata: ["cause": "\(PostgresDriver.describe(error))"])
            return TransientConflict(cause: PostgresDriver.describe(error))
        }

        /// A parameter as postgres-nio's prepared statements take it, in binary format.
        private static func data(_ value: SQLValue) -> PostgresData {
            switch value {
            case .int(let value): PostgresData(int64: value)
            case .text(let value): PostgresData(string: value)
            case .bytes(let value): PostgresData(bytes: value)
            case .null: PostgresData(type: .null)
            case .array(let array):
                PostgresArrayParameter(array).postgresData
            }
        }

        private nonisolated(nonsending) func runUnnamed(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            var bindings = PostgresBindings(capacity: binds.count)
            for value in binds {
                switch value {
                case .int(let value): bindings.append(value)
                case .text(let value): bindings.append(value)
                case .bytes(let value): bindings.append(ByteBuffer(bytes: value))
                case .null: bindings.appendNull()
                case .array(let array): bindings.append(PostgresArrayParameter(array))
                }
            }
            do {
                var rows: [SQLRow] = []
                let sequence = try await connection.query(
                    PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
                for try await row in sequence {
                    rows.append(SQLRow(values: try row.map(Self.value)))
                }
                return rows
            } catch {
                if PostgresDriver.isTransientConflict(error) {
                    throw TransientConflict(cause: PostgresDriver.describe(error))
                }
                throw StoreError(.query, store: name, cause: PostgresDriver.describe(error))
            }
        }

        private static func value(_ cell: PostgresCell) throws -> SQLValue {
            guard let bytes = cell.bytes else { return .null }
            switch cell.dataType {
            case .int2, .int4, .int8: return .int(try cell.decode(Int64.self))
            case .bool: return .int(try cell.decode(Bool.self) ? 1 : 0)
            case .bytea: return .bytes(Array(bytes.readableBytesView))
            // Text, and what the schema never stores (`void` from pg_advisory_xact_lock): as text.
            default: return .text(String(buffer: bytes))
            }
        }
    }
}
