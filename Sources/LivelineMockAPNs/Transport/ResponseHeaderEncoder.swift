import NIOCore

/// Encodes a response's header block.
///
/// Fields are HPACK literals without indexing (RFC 7541 §6.2.2), except common `:status`
/// values, which are static-table indices. The mock never adds to the peer's dynamic table, so
/// it needs no encoder state and ignores SETTINGS_HEADER_TABLE_SIZE.
///
/// The block is written straight into the buffer's free space in one pass: writing it a byte
/// at a time through `ByteBuffer` cost an exclusivity check per byte.
enum ResponseHeaderEncoder {
    static func encode(status: Int, fields: [(String, String)], into out: inout ByteBuffer) {
        var statusText = staticStatusIndex(status) == nil ? String(status) : ""
        // Each integer takes at most 5 bytes for the lengths a String can have here.
        var capacity = 6 + statusText.utf8.count
        for (name, value) in fields { capacity += 11 + name.utf8.count + value.utf8.count }
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { buffer in
            var writer = Writer(buffer: buffer)
            if let index = staticStatusIndex(status) {
                writer.byte(0x80 | index)
            } else {
                // Literal without indexing, name from static entry 8 (`:status`).
                writer.byte(0x08)
                writer.string(&statusText)
            }
            for (name, value) in fields {
                var name = name, value = value
                writer.byte(0x00)
                writer.string(&name)
                writer.string(&value)
            }
            return writer.count
        }
    }

    /// Writes into free buffer space the caller sized.
    private struct Writer {
        let buffer: UnsafeMutableRawBufferPointer
        var count = 0

        mutating func byte(_ value: UInt8) {
            buffer[count] = value
            count += 1
        }

        /// An HPACK string literal without Huffman coding: a 7-bit-prefix length, the bytes.
        mutating func string(_ text: inout String) {
            text.withUTF8 { bytes in
                var length = bytes.count
                if length < 0x7F {
                    byte(UInt8(length))
                } else {
                    byte(0x7F)
                    length -= 0x7F
                    while length >= 0x80 {
                        byte(UInt8(truncatingIfNeeded: length) & 0x7F | 0x80)
                        length >>= 7
                    }
                    byte(UInt8(length))
                }
                UnsafeMutableRawBufferPointer(rebasing: buffer[count...]).copyMemory(
                    from: UnsafeRawBufferPointer(bytes))
                count += bytes.count
            }
        }
    }

    private static func staticStatusIndex(_ status: Int) -> UInt8? {
        switch status {
        case 200: 8
        case 204: 9
        case 206: 10
        case 304: 11
        case 400: 12
        case 404: 13
        case 500: 14
        default: nil
        }
    }
}
