import LivelineHTTP2
import NIOCore

/// Encodes a response's header block.
///
/// Fields are HPACK literals without indexing (RFC 7541 §6.2.2), except common `:status`
/// values, which are static-table indices. The mock never adds to the peer's dynamic table, so
/// it needs no encoder state and ignores SETTINGS_HEADER_TABLE_SIZE.
enum ResponseHeaderEncoder {
    static func encode(status: Int, fields: [(String, String)], into out: inout ByteBuffer) {
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
