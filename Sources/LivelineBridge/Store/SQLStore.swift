import Foundation
import Liveline

/// The `Store` on SQLite or PostgreSQL: one implementation of the semantics over a
/// `SQLDriver`, so that both databases run the same statements and pass the same tests.
///
/// The driver owns concurrency (a serialized connection for SQLite, a pool with row locks for
/// PostgreSQL); this class holds no mutable state and may be shared by any number of tasks.
public final class SQLStore: Store {
    let driver: any SQLDriver
    /// The schema versions this open applied (empty when the store was up to date).
    public let migrationsAppliedAtOpen: [Int]
    /// Whether answers are written to the delivery history (`retention: {history: off}` keeps
    /// none: no content-state is kept after its push is answered).
    public let keepsHistory: Bool

    private init(driver: any SQLDriver, migrationsAppliedAtOpen: [Int], keepsHistory: Bool) {
        self.driver = driver
        self.migrationsAppliedAtOpen = migrationsAppliedAtOpen
        self.keepsHistory = keepsHistory
    }

    /// Opens the store at `location` (creating a SQLite file on first open) and applies the
    /// migrations it lacks.
    public static func open(
        _ location: StoreLocation, now: Millis = BridgeClock.now(), keepsHistory: Bool = true
    ) async throws -> SQLStore {
        try await open(location, now: now, migratingThrough: .max, keepsHistory: keepsHistory)
    }

    /// Opens the store with the migrations up to `last` only: an older bridge's store, for
    /// tests of an upgrade.
    static func open(
        _ location: StoreLocation, now: Millis, migratingThrough last: Int, keepsHistory: Bool = true
    ) async throws -> SQLStore {
        let driver: any SQLDriver =
            switch location {
            case .sqlite(let path): try await SQLiteDriver.open(path: path)
            case .postgres(let postgres): try await PostgresDriver.open(postgres)
            }
        do {
            let applied = try await Migrations.apply(on: driver, now: now, through: last)
            return SQLStore(driver: driver, migrationsAppliedAtOpen: applied, keepsHistory: keepsHistory)
        } catch {
            try? await driver.close()
            throw error
        }
    }

    /// Opens `sqlite:PATH` or `postgres://…`.
    public static func open(
        _ location: String, now: Millis = BridgeClock.now(), keepsHistory: Bool = true
    ) async throws -> SQLStore {
        try await open(StoreLocation(parsing: location), now: now, keepsHistory: keepsHistory)
    }

    /// "SQLite at PATH" or "PostgreSQL at HOST:PORT".
    public var name: String { driver.name }

    public var taskExecutor: (any TaskExecutor)? { driver.taskExecutor }

    /// One transaction; a row that does not match the schema becomes `StoreError.corruptRow`.
    /// Its commit survives power loss unless `durability` says less.
    @discardableResult
    func transaction<T: Sendable>(
        durability: CommitDurability = .powerLoss,
        _ body: nonisolated(nonsending) @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        do {
            return try await driver.transaction(durability: durability, body)
        } catch let error as SQLRowError {
            throw StoreError(.corruptRow, store: driver.name, cause: error.message)
        } catch let error as DecodingError {
            throw StoreError(.corruptRow, store: driver.name, cause: "\(error)")
        }
    }

    /// Index ranges of at most 256 rows, for set-wise statements: at most 2,048 parameters at
    /// 8 a row, well under both databases' limits.
    static func chunks(_ count: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: 256).map { $0..<min($0 + 256, count) }
    }

    public func counts() async throws -> StoreCounts {
        try await transaction { tx in
            let rows = try await tx.run(
                """
                SELECT (SELECT COUNT(*) FROM inbox_events WHERE state = 'pending'), (SELECT COUNT(*) FROM outbox),
                       (SELECT COUNT(*) FROM dead_letters), (SELECT COUNT(*) FROM activities),
                       (SELECT COUNT(*) FROM outbox WHERE kind = 'start' AND due_at = $1)
                """,
                [.int(Self.inDoubtDue)]
            )
            guard let row = rows.first else { throw SQLRowError("no row from COUNT") }
            return StoreCounts(
                pendingEvents: Int(try row.int(0)), outbox: Int(try row.int(1)),
                deadLetters: Int(try row.int(2)), activities: Int(try row.int(3)),
                startsInDoubt: Int(try row.int(4))
            )
        }
    }

    public func close() async throws {
        try await driver.close()
    }
}

/// Headers are stored as JSON objects (sorted keys): readable with `sqlite3` and `psql`.
/// Written and read with Liveline's own JSON writer and parser: this runs for every webhook
/// stored and every push claimed, where Foundation's coders cost more than the insert.
enum StoredHeaders {
    static func encode(_ headers: [String: String]) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + headers.count * 64)
        writer.raw(UInt8(ascii: "{"))
        for (index, name) in headers.keys.sorted().enumerated() {
            if index > 0 { writer.raw(UInt8(ascii: ",")) }
            writer.string(name)
            writer.raw(UInt8(ascii: ":"))
            writer.string(headers[name] ?? "")
        }
        writer.raw(UInt8(ascii: "}"))
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> [String: String] {
        let value: StateValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw SQLRowError("stored headers are not JSON: \(error)")
        }
        guard case .object(let object) = value else { throw SQLRowError("stored headers are not a JSON object") }
        var headers: [String: String] = [:]
        for (name, field) in zip(object.keys, object.values) {
            guard case .string(let text) = field else { throw SQLRowError("stored header \(name) is not a string") }
            headers[name] = text
        }
        return headers
    }
}
