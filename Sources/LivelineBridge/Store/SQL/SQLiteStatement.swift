// SQLite's C API, as sqlite-nio vendors and builds it (its functions carry a `sqlite_nio_`
// prefix). sqlite-nio's Swift API prepares every statement anew and answers through an event
// loop future; the bridge runs the same few statements thousands of times a second, so it keeps
// them prepared and steps them on the connection's own thread (see `SQLiteConnection`).
import VaporCSQLite

/// SQLite's "copy the value now" destructor: a bound value is copied before the call returns,
/// so the Swift value may go away.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One prepared statement, reset after each use. Owned by one `SQLiteConnection`, which
/// finalizes it; used only on the connection's thread.
struct SQLiteStatement {
    let handle: OpaquePointer

    /// Binds `values` to `?1`, `?2`, …, steps through every row and resets the statement, even
    /// when a step fails. `describe` turns a result code into the connection's error message.
    func run(_ values: [SQLValue], describe: (Int32) -> String) throws(SQLiteFailure) -> [SQLRow] {
        defer {
            sqlite_nio_sqlite3_reset(handle)
            sqlite_nio_sqlite3_clear_bindings(handle)
        }
        for (offset, value) in values.enumerated() {
            if case .array = value {
                throw SQLiteFailure(code: SQLITE_MISMATCH, message: "SQLite has no array parameters (?\(offset + 1))")
            }
            let code = bind(value, at: Int32(offset + 1))
            guard code == SQLITE_OK else { throw SQLiteFailure(code: code, message: describe(code)) }
        }
        var rows: [SQLRow] = []
        let columns = sqlite_nio_sqlite3_column_count(handle)
        while true {
            let code = sqlite_nio_sqlite3_step(handle)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw SQLiteFailure(code: code, message: describe(code)) }
            var row: [SQLValue] = []
            row.reserveCapacity(Int(columns))
            for column in 0..<columns { row.append(value(at: column)) }
            rows.append(SQLRow(values: row))
        }
    }

    private func bind(_ value: SQLValue, at index: Int32) -> Int32 {
        switch value {
        case .int(let number):
            return sqlite_nio_sqlite3_bind_int64(handle, index, number)
        case .text(var text):
            return text.withUTF8 { utf8 in
                // An empty buffer may have no address, and a NULL pointer would bind NULL.
                utf8.isEmpty
                    ? sqlite_nio_sqlite3_bind_text(handle, index, "", 0, transient)
                    : utf8.withMemoryRebound(to: CChar.self) {
                        sqlite_nio_sqlite3_bind_text64(
                            handle, index, $0.baseAddress, UInt64($0.count), transient, UInt8(SQLITE_UTF8))
                    }
            }
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { raw in
                raw.isEmpty
                    ? sqlite_nio_sqlite3_bind_zeroblob(handle, index, 0)
                    : sqlite_nio_sqlite3_bind_blob64(handle, index, raw.baseAddress, UInt64(raw.count), transient)
            }
        case .null:
            return sqlite_nio_sqlite3_bind_null(handle, index)
        case .array:
            return SQLITE_MISMATCH
        }
    }

    private func value(at column: Int32) -> SQLValue {
        switch sqlite_nio_sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .int(sqlite_nio_sqlite3_column_int64(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite_nio_sqlite3_column_bytes(handle, column))
            guard let text = sqlite_nio_sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite_nio_sqlite3_column_bytes(handle, column))
            guard count > 0, let blob = sqlite_nio_sqlite3_column_blob(handle, column) else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        case SQLITE_FLOAT:
            // No REAL columns in the schema; an aggregate that yields one is truncated.
            let number = sqlite_nio_sqlite3_column_double(handle, column)
            return Int64(exactly: number.rounded(.towardZero)).map(SQLValue.int) ?? .null
        default:
            return .null
        }
    }
}

/// A failed SQLite call: its result code and the connection's message for it.
struct SQLiteFailure: Error, Sendable {
    var code: Int32
    var message: String
}
