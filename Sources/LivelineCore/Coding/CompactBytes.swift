/// A small, fast byte form for state that is written very often, such as an engine snapshot,
/// which the bridge stores with every dispatch step.
///
/// Integers are LEB128 varints (signed ones zigzag-encoded, so small negatives stay small),
/// doubles are their 8-byte IEEE bit pattern (little-endian), strings are a length and their
/// UTF-8 bytes. There are no field names: the reader must ask for exactly what the writer
/// wrote, in the same order, so every layout carries its own version number.
///
/// ``CompactReader`` never trusts the bytes: a count larger than what is left, a varint longer
/// than 10 bytes, invalid UTF-8 or nesting deeper than ``CompactReader/maxDepth`` throws a
/// ``CompactDecodingError`` naming the offset, never traps or allocates without bound.
public struct CompactWriter: Sendable {
    /// Everything written so far, ready to store.
    public private(set) var bytes: [UInt8]

    /// An empty writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends one byte as it is (a tag, a version number).
    public mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// Appends `raw` as they are (a magic number, a header).
    public mutating func raw(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends `value` as an LEB128 varint: seven bits a byte, so values below 128 take one byte.
    public mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends `value` zigzag-encoded as a varint, so small negative numbers stay short too.
    public mutating func int(_ value: Int64) {
        unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Appends `value` as ``int(_:)-(Int64)`` does; read it back with ``CompactReader/int()``.
    public mutating func int(_ value: Int) {
        int(Int64(value))
    }

    /// Appends `value` as one byte, 0 or 1.
    public mutating func bool(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    /// Appends the 8 bytes of `value`'s IEEE 754 bit pattern, little-endian, so it reads back exactly.
    public mutating func double(_ value: Double) {
        var bits = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    /// Appends the length of `value`'s UTF-8 as a varint, then those bytes.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Writes whether `value` is present, then `write` for it when it is.
    public mutating func optional<T>(_ value: T?, _ write: (inout CompactWriter, T) -> Void) {
        guard let value else {
            bytes.append(0)
            return
        }
        bytes.append(1)
        write(&self, value)
    }
}

/// Reads what a ``CompactWriter`` wrote; see there for the form.
public struct CompactReader: Sendable {
    /// How deeply nested values (arrays in objects in arrays…) may go before reading refuses.
    public static let maxDepth = 64

    /// The bytes being read.
    public let bytes: [UInt8]
    /// Where the next read starts, in bytes from the start of ``bytes``.
    public private(set) var offset: Int
    /// Nesting depth, kept by readers of recursive values through ``nested(_:)``.
    private var depth = 0

    /// A reader of `bytes` that starts at `offset` (past a header its caller has checked, say).
    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Whether every byte has been read: a layout reader checks it last, so trailing bytes are noticed.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// An error at the current offset saying what was expected there, for a reader's own checks.
    public func error(_ expected: String) -> CompactDecodingError {
        CompactDecodingError(offset: offset, expected: expected)
    }

    /// Reads one byte.
    public mutating func byte() throws(CompactDecodingError) -> UInt8 {
        guard offset < bytes.count else { throw error("a byte, but the data ends") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads `count` bytes and checks they are `expected`.
    public mutating func expect(_ expected: [UInt8], _ what: String) throws(CompactDecodingError) {
        guard bytes.count - offset >= expected.count, bytes[offset..<offset + expected.count].elementsEqual(expected)
        else {
            throw error(what)
        }
        offset += expected.count
    }

    /// Reads a varint of at most 64 bits; a longer one throws.
    public mutating func unsigned() throws(CompactDecodingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte()
            guard shift < 64, shift < 63 || byte <= 1 else { throw error("a varint of at most 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// Reads a zigzag varint as written by ``CompactWriter/int(_:)-(Int64)``.
    public mutating func int64() throws(CompactDecodingError) -> Int64 {
        let zigzag = try unsigned()
        return Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
    }

    /// Reads a zigzag varint and throws when it does not fit this machine's `Int`.
    public mutating func int() throws(CompactDecodingError) -> Int {
        let value = try int64()
        guard let int = Int(exactly: value) else { throw error("an integer that fits this machine") }
        return int
    }

    /// Reads a zigzag varint and throws when it does not fit in 32 bits.
    public mutating func int32() throws(CompactDecodingError) -> Int32 {
        guard let value = Int32(exactly: try int64()) else { throw error("a 32-bit integer") }
        return value
    }

    /// Reads a boolean; any byte other than 0 or 1 throws, so corruption is not read as `true`.
    public mutating func bool() throws(CompactDecodingError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        default: throw error("a boolean (0 or 1)")
        }
    }

    /// Reads the 8 bytes of a double written by ``CompactWriter/double(_:)``.
    public mutating func double() throws(CompactDecodingError) -> Double {
        guard bytes.count - offset >= 8 else { throw error("8 bytes of a double, but the data ends") }
        var bits: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) {
            bits |= UInt64(bytes[offset]) << UInt64(shift)
            offset += 1
        }
        return Double(bitPattern: bits)
    }

    /// A count of items that each take at least one byte: never more than the bytes left, so a
    /// corrupt count cannot make a reader reserve gigabytes.
    public mutating func count() throws(CompactDecodingError) -> Int {
        let count = try unsigned()
        guard count <= UInt64(bytes.count - offset) else {
            throw error("a count no larger than the \(bytes.count - offset) bytes left")
        }
        return Int(count)
    }

    /// Reads a length and that many bytes of UTF-8; invalid UTF-8 throws and leaves the offset before it.
    public mutating func string() throws(CompactDecodingError) -> String {
        let length = try count()
        let start = offset
        offset += length
        guard let text = String(validating: bytes[start..<offset], as: UTF8.self) else {
            offset = start
            throw error("\(length) bytes of UTF-8 text")
        }
        return text
    }

    /// Reads a presence flag, then the value with `read` when it is present.
    public mutating func optional<T>(
        _ read: (inout CompactReader) throws(CompactDecodingError) -> T
    ) throws(CompactDecodingError) -> T? {
        try bool() ? try read(&self) : nil
    }

    /// Runs `read` one nesting level deeper, refusing past ``maxDepth``.
    public mutating func nested<T>(
        _ read: (inout CompactReader) throws(CompactDecodingError) -> T
    ) throws(CompactDecodingError) -> T {
        guard depth < Self.maxDepth else { throw error("values nested at most \(Self.maxDepth) deep") }
        depth += 1
        defer { depth -= 1 }
        return try read(&self)
    }
}

/// Bytes that are not what a ``CompactReader`` was asked for: truncated, corrupt, or written in
/// another layout.
public struct CompactDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where reading stopped, in bytes from the start.
    public var offset: Int
    /// What the reader expected there.
    public var expected: String

    /// An error at `offset` saying what was `expected` there.
    public init(offset: Int, expected: String) {
        self.offset = offset
        self.expected = expected
    }

    public var description: String { "at byte \(offset): expected \(expected)" }
}
