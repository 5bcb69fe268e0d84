import NIOCore

/// Why a header block could not be decoded; any of them is a COMPRESSION_ERROR of the connection
/// (RFC 9113 §4.3).
package enum HPACKDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The block ends inside a field, an integer or a string.
    case truncated
    /// An integer too large to represent (RFC 7541 §5.1).
    case integerOverflow
    /// Index 0, which names nothing (§6.1).
    case zeroIndex
    /// An index past the static and dynamic tables.
    case indexOutOfRange(index: Int, last: Int)
    /// A literal field with an empty name.
    case emptyName
    /// A Huffman-coded string that decodes to EOS, or whose padding is not up to 7 one bits (§5.2).
    case invalidHuffman
    /// A dynamic table size update above the SETTINGS_HEADER_TABLE_SIZE we sent (§4.2).
    case tableSizeTooLarge(requested: Int, allowed: Int)
    /// A dynamic table size update after a field, or more than two in a row (§4.2).
    case misplacedTableSizeUpdate
    /// The decoded fields add up to more than the header list size we allow.
    case headerListTooLarge(limit: Int)

    package var description: String {
        switch self {
        case .truncated: "the block ends inside a field"
        case .integerOverflow: "an integer too large to represent"
        case .zeroIndex: "index 0"
        case .indexOutOfRange(let index, let last): "index \(index), past the last entry \(last)"
        case .emptyName: "a literal field with an empty name"
        case .invalidHuffman: "a Huffman-coded string with EOS or bad padding"
        case .tableSizeTooLarge(let requested, let allowed):
            "a dynamic table size update to \(requested), above \(allowed)"
        case .misplacedTableSizeUpdate: "a dynamic table size update after a field, or a third in a row"
        case .headerListTooLarge(let limit): "a header list larger than \(limit) bytes"
        }
    }
}

/// Decodes one connection's HPACK header blocks (RFC 7541), keeping its dynamic table between
/// blocks.
///
/// Built for the rate the mock answers at: fields sent as an index share the table's strings
/// (no copy), Huffman strings are decoded a table lookup a symbol (``HPACKHuffman``), and the
/// literals a peer sends again with every request (`:path`, `authorization`) come from a small
/// cache keyed by their bytes (``HPACKLiteralCache``). The rules are RFC 7541's: a table size
/// update only at the start of a block (at most two) and never above what we advertised;
/// indices within the tables; EOS and bad padding refused; the header list size counted as the
/// fields' octets plus 32 each (RFC 9113 §6.5.2), against the limit we advertised.
///
/// Strings are read as UTF-8 with invalid sequences replaced (U+FFFD), as swift-nio-http2's
/// decoder did; sizes count the octets as sent.
package struct HeaderBlockDecoder {
    /// The dynamic table size we advertised: the most a size update may ask for.
    package let maxTableSize: Int
    /// The most the decoded fields of one block may add up to.
    package let maxHeaderListSize: Int
    private var table: HPACKDynamicTable
    private var cache = HPACKLiteralCache()
    /// Whether unindexed literals go through ``HPACKLiteralCache``.
    private let cachesLiterals: Bool

    /// - Parameter cachesLiterals: false for a peer whose unindexed literals never repeat (an
    ///   APNs answer carries only a fresh `apns-id`): each would cost a cache insert and miss.
    package init(maxTableSize: Int, maxHeaderListSize: Int, cachesLiterals: Bool = true) {
        self.maxTableSize = maxTableSize
        self.maxHeaderListSize = maxHeaderListSize
        self.cachesLiterals = cachesLiterals
        table = HPACKDynamicTable(maxSize: maxTableSize)
    }

    /// The dynamic table's current size limit and use, for tests.
    package var dynamicTableSize: (used: Int, limit: Int, entries: Int) { (table.size, table.maxSize, table.count) }
    /// How many literals the cache holds, for tests.
    package var cachedLiterals: Int { cache.count }

    /// Decodes one complete header block.
    package mutating func decode(_ block: ByteBuffer) throws(HPACKDecodingError) -> HeaderFields {
        let result = block.withUnsafeReadableBytes { bytes -> Result<HeaderFields, HPACKDecodingError> in
            do throws(HPACKDecodingError) {
                return .success(try decode(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// One decoded string and its length in octets as sent (before any UTF-8 repair).
    private typealias Decoded = (string: String, length: Int)

    private mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(HPACKDecodingError) -> HeaderFields {
        var reader = Reader(bytes: bytes)
        var fields = HeaderFields()
        fields.reserveCapacity(16)
        var listSize = 0
        var sizeUpdates = 0
        while reader.index < bytes.count {
            let first = bytes[reader.index]
            let name: Decoded
            let value: Decoded
            if first & 0x80 != 0 {
                // Indexed field (§6.1).
                let index = try reader.integer(prefix: 7)
                (name, value) = try field(at: index)
            } else if first & 0x40 != 0 {
                // Literal with incremental indexing (§6.2.1): decoded once, then sent as an index.
                let index = try reader.integer(prefix: 6)
                name = try index == 0 ? literalName(&reader) : field(at: index).name
                value = try literal(&reader, cached: false)
                table.add(name: name.string, nameLength: name.length, value: value.string, valueLength: value.length)
            } else if first & 0x20 != 0 {
                // Dynamic table size update (§6.3), only before the first field.
                guard fields.isEmpty, sizeUpdates < 2 else { throw .misplacedTableSizeUpdate }
                sizeUpdates += 1
                let size = try reader.integer(prefix: 5)
                guard size <= maxTableSize else { throw .tableSizeTooLarge(requested: size, allowed: maxTableSize) }
                table.resize(to: size)
                continue
            } else {
                // Literal without indexing (0000) or never indexed (0001) (§6.2.2, §6.2.3): the
                // ones a peer repeats in every block.
                let index = try reader.integer(prefix: 4)
                name = try index == 0 ? literalName(&reader) : field(at: index).name
                value = try literal(&reader, cached: true)
            }
            listSize += name.length + value.length + 32
            guard listSize <= maxHeaderListSize else { throw .headerListTooLarge(limit: maxHeaderListSize) }
            fields.append(name: name.string, value: value.string)
        }
        return fields
    }

    /// The field at a 1-based HPACK index: the static table, then the dynamic table newest first.
    private func field(at index: Int) throws(HPACKDecodingError) -> (name: Decoded, value: Decoded) {
        guard index != 0 else { throw .zeroIndex }
        let statics = HPACKStaticTable.entries
        if index <= statics.count {
            let entry = statics[index - 1]
            return ((entry.name, entry.name.utf8.count), (entry.value, entry.value.utf8.count))
        }
        guard let entry = table[index - statics.count - 1] else {
            throw .indexOutOfRange(index: index, last: statics.count + table.count)
        }
        return (
            (entry.name, entry.nameLength),
            (entry.value, entry.size - entry.nameLength - HPACKDynamicTable.entryOverhead)
        )
    }

    private mutating func literalName(_ reader: inout Reader) throws(HPACKDecodingError) -> Decoded {
        let name = try literal(&reader, cached: true)
        guard name.length > 0 else { throw .emptyName }
        return name
    }

    /// A string literal (§5.2); from the cache when `cached` and its size suits it.
    private mutating func literal(_ reader: inout Reader, cached: Bool) throws(HPACKDecodingError) -> Decoded {
        let (encoded, huffman) = try reader.stringBytes()
        guard cached, cachesLiterals, HPACKLiteralCache.isCacheable(length: encoded.count) else {
            return try Self.decodeString(encoded, huffman: huffman)
        }
        let hash = HPACKLiteralCache.hash(encoded, huffman: huffman)
        if let hit = cache.lookup(encoded, huffman: huffman, hash: hash) { return (hit.value, hit.decodedLength) }
        let decoded = try Self.decodeString(encoded, huffman: huffman)
        cache.insert(encoded, huffman: huffman, hash: hash, value: decoded.string, decodedLength: decoded.length)
        return decoded
    }

    private static func decodeString(
        _ encoded: UnsafeRawBufferPointer, huffman: Bool
    ) throws(HPACKDecodingError) -> Decoded {
        guard huffman else { return (String(decoding: encoded, as: UTF8.self), encoded.count) }
        var length: Int?
        let string = String(unsafeUninitializedCapacity: HPACKHuffman.maxDecodedCount(encoded.count)) { output in
            length = HPACKHuffman.decode(encoded, into: output)
            return length ?? 0
        }
        guard let length else { throw .invalidHuffman }
        return (string, length)
    }

    /// Reads integers and string literals from a block.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        /// An integer with an N-bit prefix (§5.1). Like swift-nio-http2's decoder, it takes at
        /// most nine continuation bytes and refuses a value that overflows `Int`.
        mutating func integer(prefix: Int) throws(HPACKDecodingError) -> Int {
            guard index < bytes.count else { throw .truncated }
            let mask = (1 << prefix) - 1
            var value = Int(bytes[index]) & mask
            index += 1
            guard value == mask else { return value }
            var shift = 0
            while true {
                guard index < bytes.count else { throw .truncated }
                let byte = bytes[index]
                index += 1
                let (scaled, overflowed) = Int(byte & 0x7F).multipliedReportingOverflow(by: 1 << shift)
                guard !overflowed else { throw .integerOverflow }
                let (sum, carried) = value.addingReportingOverflow(scaled)
                guard !carried else { throw .integerOverflow }
                value = sum
                shift += 7
                guard shift < Int.bitWidth else { throw .integerOverflow }
                if byte & 0x80 == 0 { return value }
            }
        }

        /// A string literal's bytes as sent, and whether they are Huffman-coded.
        mutating func stringBytes() throws(HPACKDecodingError) -> (UnsafeRawBufferPointer, huffman: Bool) {
            guard index < bytes.count else { throw .truncated }
            let huffman = bytes[index] & 0x80 != 0
            let length = try integer(prefix: 7)
            guard length <= bytes.count - index else { throw .truncated }
            let encoded = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)])
            index += length
            return (encoded, huffman)
        }
    }
}
