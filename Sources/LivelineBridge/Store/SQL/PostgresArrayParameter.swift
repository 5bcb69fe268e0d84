import NIOCore
import PostgresNIO

/// An `SQLArray` in PostgreSQL's binary array format (one dimension, lower bound 1). postgres-nio
/// encodes arrays of values but not arrays with NULL elements, which a batch of followers has
/// (a follower without a start token, without an environment).
struct PostgresArrayParameter: PostgresDynamicTypeEncodable {
    let array: SQLArray

    init(_ array: SQLArray) { self.array = array }

    var psqlType: PostgresDataType {
        switch array {
        case .ints: .int8Array
        case .texts: .textArray
        case .bytes: .byteaArray
        }
    }

    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        switch array {
        case .ints(let values):
            header(count: values.count, hasNull: false, element: .int8, into: &buffer)
            for value in values {
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(value)
            }
        case .texts(let values):
            header(count: values.count, hasNull: values.contains(nil), element: .text, into: &buffer)
            for value in values { element(value?.utf8, into: &buffer) }
        case .bytes(let values):
            header(count: values.count, hasNull: values.contains(nil), element: .bytea, into: &buffer)
            for value in values { element(value, into: &buffer) }
        }
    }

    /// One element: its length and bytes, or -1 for NULL.
    private func element(_ bytes: (some Collection<UInt8>)?, into buffer: inout ByteBuffer) {
        guard let bytes else {
            buffer.writeInteger(Int32(-1))
            return
        }
        buffer.writeInteger(Int32(bytes.count))
        buffer.writeBytes(bytes)
    }

    /// Dimensions, the NULL flag and the element type; then, for a non-empty array, its length
    /// and lower bound. An empty array has no dimensions.
    private func header(count: Int, hasNull: Bool, element: PostgresDataType, into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(count == 0 ? 0 : 1))
        buffer.writeInteger(Int32(hasNull ? 1 : 0))
        buffer.writeInteger(element.rawValue)
        guard count > 0 else { return }
        buffer.writeInteger(Int32(count))
        buffer.writeInteger(Int32(1))
    }
}

extension PostgresArrayParameter {
    /// The array as postgres-nio's prepared statements take a parameter.
    var postgresData: PostgresData {
        var buffer = ByteBuffer()
        encode(into: &buffer, context: .default)
        return PostgresData(type: psqlType, formatCode: .binary, value: buffer)
    }
}
