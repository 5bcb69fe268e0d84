import Foundation

/// A value bound to or read from a statement; the common ground of SQLite and PostgreSQL.
/// Integers are `Int64` (SQLite INTEGER, PostgreSQL BIGINT), bytes are BLOB/BYTEA.
enum SQLValue: Sendable, Hashable {
    case int(Int64)
    case text(String)
    case bytes([UInt8])
    case null
    /// A whole column of a batch as one PostgreSQL array parameter (`unnest($2::text[], …)`), so
    /// a thousand rows are one statement with a few parameters rather than thousands.
    /// PostgreSQL only: SQLite has no arrays and refuses one.
    case array(SQLArray)

    static func optional(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    static func optional(_ value: Int64?) -> SQLValue { value.map(SQLValue.int) ?? .null }
    static func optional(_ value: [UInt8]?) -> SQLValue { value.map(SQLValue.bytes) ?? .null }
}

/// The elements of an array parameter; an element may be NULL.
enum SQLArray: Sendable, Hashable {
    case ints([Int64])
    case texts([String?])
    case bytes([[UInt8]?])
}

/// One result row, by column position, with readers that say what was wrong instead of
/// trapping on a value the schema does not allow.
struct SQLRow: Sendable {
    var values: [SQLValue]

    func value(_ index: Int) throws -> SQLValue {
        guard values.indices.contains(index) else {
            throw SQLRowError("no column \(index) in a row of \(values.count)")
        }
        return values[index]
    }

    func int(_ index: Int) throws -> Int64 {
        guard case .int(let value) = try value(index) else { throw SQLRowError("column \(index) is not an integer") }
        return value
    }

    func text(_ index: Int) throws -> String {
        guard case .text(let value) = try value(index) else { throw SQLRowError("column \(index) is not text") }
        return value
    }

    func bytes(_ index: Int) throws -> [UInt8] {
        switch try value(index) {
        case .bytes(let value): return value
        case .text(let value): return Array(value.utf8)
        default: throw SQLRowError("column \(index) is not bytes")
        }
    }

    func optionalInt(_ index: Int) throws -> Int64? { try value(index) == .null ? nil : try int(index) }
    func optionalText(_ index: Int) throws -> String? { try value(index) == .null ? nil : try text(index) }
    func optionalBytes(_ index: Int) throws -> [UInt8]? { try value(index) == .null ? nil : try bytes(index) }
}

/// A row that does not match the schema; `SQLStore` turns it into `StoreError.corruptRow`.
struct SQLRowError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
