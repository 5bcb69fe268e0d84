import NIOCore

/// Appends HTTP/2 frames to an outbound buffer, including the HPACK block of a response.
///
/// Response headers are encoded as HPACK literals without indexing (RFC 7541 §6.2.2), except
/// common `:status` values, which are static-table indices. The mock never adds to the
/// peer's dynamic table, so it needs no encoder state and ignores SETTINGS_HEADER_TABLE_SIZE.
enum FrameWriter {
    static func frameHeader(length: Int, type: HTTP2Wire.FrameType, flags: UInt8, streamID: UInt32, into out: inout ByteBuffer) {
        out.writeInteger(UInt8(truncatingIfNeeded: length >> 16))
        out.writeInteger(UInt16(truncatingIfNeeded: length))
        out.writeInteger(type.rawValue)
        out.writeInteger(flags)
        out.writeInteger(streamID & 0x7FFF_FFFF)
    }

    static func settings(_ values: [(HTTP2Wire.Setting, UInt32)], into out: inout ByteBuffer) {
        frameHeader(length: values.count * 6, type: .settings, flags: 0, streamID: 0, into: &out)
        for (setting, value) in values {
            out.writeInteger(setting.rawValue)
            out.writeInteger(value)
        }
    }

    static func settingsAck(into out: inout ByteBuffer) {
        frameHeader(length: 0, type: .settings, flags: HTTP2Wire.Flags.ack, streamID: 0, into: &out)
    }

    static func pingAck(_ payload: ByteBuffer, into out: inout ByteBuffer) {
        var payload = payload
        frameHeader(length: payload.readableBytes, type: .ping, flags: HTTP2Wire.Flags.ack, streamID: 0, into: &out)
        out.writeBuffer(&payload)
    }

    static func windowUpdate(streamID: UInt32, increment: Int, into out: inout ByteBuffer) {
        frameHeader(length: 4, type: .windowUpdate, flags: 0, streamID: streamID, into: &out)
        out.writeInteger(UInt32(truncatingIfNeeded: increment) & 0x7FFF_FFFF)
    }

    static func rstStream(streamID: UInt32, code: HTTP2Wire.ErrorCode, into out: inout ByteBuffer) {
        frameHeader(length: 4, type: .rstStream, flags: 0, streamID: streamID, into: &out)
        out.writeInteger(code.rawValue)
    }

    static func goAway(lastStreamID: UInt32, code: HTTP2Wire.ErrorCode, debug: [UInt8], into out: inout ByteBuffer) {
        frameHeader(length: 8 + debug.count, type: .goAway, flags: 0, streamID: 0, into: &out)
        out.writeInteger(lastStreamID & 0x7FFF_FFFF)
        out.writeInteger(code.rawValue)
        out.writeBytes(debug)
    }

    static func data(streamID: UInt32, bytes: ArraySlice<UInt8>, endStream: Bool, into out: inout ByteBuffer) {
        frameHeader(length: bytes.count, type: .data, flags: endStream ? HTTP2Wire.Flags.endStream : 0, streamID: streamID, into: &out)
        out.writeBytes(bytes)
    }

    /// A HEADERS frame with the whole response head (always small enough for one frame).
    static func headers(streamID: UInt32, status: Int, fields: [(String, String)], endStream: Bool, into out: inout ByteBuffer) {
        let lengthIndex = out.writerIndex
        frameHeader(length: 0, type: .headers, flags: HTTP2Wire.Flags.endHeaders | (endStream ? HTTP2Wire.Flags.endStream : 0),
                    streamID: streamID, into: &out)
        let blockStart = out.writerIndex
        if let index = staticStatusIndex(status) {
            out.writeInteger(0x80 | index)
        } else {
            // Literal without indexing, name from static entry 8 (`:status`).
            out.writeInteger(UInt8(0x08))
            writeString(String(status), into: &out)
        }
        for (name, value) in fields {
            out.writeInteger(UInt8(0x00))
            writeString(name, into: &out)
            writeString(value, into: &out)
        }
        let length = out.writerIndex - blockStart
        out.setInteger(UInt8(truncatingIfNeeded: length >> 16), at: lengthIndex)
        out.setInteger(UInt16(truncatingIfNeeded: length), at: lengthIndex + 1)
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

    /// An HPACK string literal without Huffman coding: a 7-bit-prefix length, then the bytes.
    private static func writeString(_ string: String, into out: inout ByteBuffer) {
        let count = string.utf8.count
        writeInteger(count, prefixBits: 7, firstByte: 0, into: &out)
        out.writeString(string)
    }

    /// RFC 7541 §5.1 integer encoding.
    static func writeInteger(_ value: Int, prefixBits: Int, firstByte: UInt8, into out: inout ByteBuffer) {
        let limit = (1 << prefixBits) - 1
        if value < limit {
            out.writeInteger(firstByte | UInt8(value))
            return
        }
        out.writeInteger(firstByte | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            out.writeInteger(UInt8(rest & 0x7F | 0x80))
            rest >>= 7
        }
        out.writeInteger(UInt8(rest))
    }
}
