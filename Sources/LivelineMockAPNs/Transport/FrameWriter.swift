import LivelineHTTP2
import NIOCore

/// Appends HTTP/2 frames to an outbound buffer, including the HPACK block of a response.
///
/// Response headers are encoded as HPACK literals without indexing (RFC 7541 §6.2.2), except
/// common `:status` values, which are static-table indices. The mock never adds to the
/// peer's dynamic table, so it needs no encoder state and ignores SETTINGS_HEADER_TABLE_SIZE.
enum FrameWriter {
    static func pingAck(_ payload: ByteBuffer, into out: inout ByteBuffer) {
        var payload = payload
        HTTP2Wire.frameHeader(length: payload.readableBytes, type: .ping, flags: HTTP2Wire.Flags.ack, streamID: 0, into: &out)
        out.writeBuffer(&payload)
    }

    static func data(streamID: UInt32, bytes: ArraySlice<UInt8>, endStream: Bool, into out: inout ByteBuffer) {
        HTTP2Wire.frameHeader(length: bytes.count, type: .data, flags: endStream ? HTTP2Wire.Flags.endStream : 0, streamID: streamID, into: &out)
        out.writeBytes(bytes)
    }

    /// A HEADERS frame with the whole response head (always small enough for one frame).
    static func headers(streamID: UInt32, status: Int, fields: [(String, String)], endStream: Bool, into out: inout ByteBuffer) {
        let lengthIndex = out.writerIndex
        HTTP2Wire.frameHeader(length: 0, type: .headers, flags: HTTP2Wire.Flags.endHeaders | (endStream ? HTTP2Wire.Flags.endStream : 0),
                    streamID: streamID, into: &out)
        let blockStart = out.writerIndex
        if let index = staticStatusIndex(status) {
            out.writeInteger(0x80 | index)
        } else {
            // Literal without indexing, name from static entry 8 (`:status`).
            out.writeInteger(UInt8(0x08))
            HTTP2Wire.writeHPACKString(String(status), into: &out)
        }
        for (name, value) in fields {
            out.writeInteger(UInt8(0x00))
            HTTP2Wire.writeHPACKString(name, into: &out)
            HTTP2Wire.writeHPACKString(value, into: &out)
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
}
