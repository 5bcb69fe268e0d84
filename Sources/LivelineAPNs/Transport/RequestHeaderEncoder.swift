import Liveline
import LivelineHTTP2
import NIOCore

/// Writes the HPACK header block (RFC 7541) of each request on one connection.
///
/// What repeats on every push (`:authority`, `authorization`, `apns-topic`, `apns-push-type`,
/// `apns-priority`, `apns-channel-id`) is sent once as a literal with incremental indexing and
/// afterwards as a one- or two-byte reference into the server's dynamic table: the 200-byte
/// provider token costs two bytes per push. What changes per push (`:path`, `apns-expiration`,
/// `apns-id`, …) is a literal without indexing. Strings are never Huffman-coded: the block is
/// a few hundred bytes, and copying them is cheaper than compressing them. A push to a device
/// token is written from its parts (token, ``PushHeaders``), with no header list built for it.
///
/// The encoder keeps its own copy of the dynamic table the server builds from these blocks,
/// with the same eviction rule, within the table size the server allows.
///
/// Loop-bound: one per connection, used only on its event loop.
struct RequestHeaderEncoder {
    private struct Entry {
        var name: String
        var value: String
        var size: Int
    }

    /// Whether values of `name` repeat from request to request (a string compare, not a hash,
    /// on this per-push path).
    private static func isIndexed(_ name: String) -> Bool {
        switch name {
        case "apns-topic", "apns-push-type", "apns-priority", "apns-channel-id": true
        default: false
        }
    }

    /// Oldest first; the newest is dynamic index 62.
    private var entries: [Entry] = []
    private var size = 0
    private var maxSize = 4096
    /// A size to announce at the start of the next block, after the server lowered its limit.
    private var pendingSizeUpdate: Int?
    /// The last provider token and its `bearer …` field value, built once per token.
    private var bearer: (token: String, field: String)?

    /// Applies the server's SETTINGS_HEADER_TABLE_SIZE (the encoder uses at most 4096 bytes).
    mutating func setTableSizeLimit(_ limit: Int) {
        let newMax = min(limit, 4096)
        guard newMax != maxSize else { return }
        maxSize = newMax
        evict(toFit: 0)
        pendingSizeUpdate = newMax
    }

    /// Appends the header block of `request` to `out`.
    mutating func encode(_ request: APNsRequest, scheme: String, authority: String, authorization: String?, into out: inout ByteBuffer) {
        if let update = pendingSizeUpdate {
            HTTP2Wire.writeHPACKInteger(update, prefixBits: 5, firstByte: 0x20, into: &out)
            pendingSizeUpdate = nil
        }
        switch request.method {
        case .get: out.writeInteger(UInt8(0x80 | 2))
        case .post: out.writeInteger(UInt8(0x80 | 3))
        case .delete:
            HTTP2Wire.writeHPACKInteger(2, prefixBits: 4, firstByte: 0x00, into: &out)
            HTTP2Wire.writeHPACKString("DELETE", into: &out)
        }
        out.writeInteger(UInt8(scheme == "https" ? 0x80 | 7 : 0x80 | 6))
        writeIndexed(name: ":authority", staticName: 1, value: authority, into: &out)
        HTTP2Wire.writeHPACKInteger(4, prefixBits: 4, firstByte: 0x00, into: &out)
        switch request.content {
        case .devicePush(let token, _, _, _):
            let prefix: StaticString = "/3/device/"
            HTTP2Wire.writeHPACKInteger(prefix.utf8CodeUnitCount + token.utf8.count, prefixBits: 7, firstByte: 0, into: &out)
            out.writeStaticString(prefix)
            out.writeString(token)
        case .general(let path, _, _):
            HTTP2Wire.writeHPACKString(path, into: &out)
        }
        if let authorization {
            if bearer?.token != authorization { bearer = (authorization, "bearer " + authorization) }
            writeIndexed(name: "authorization", staticName: 23, value: bearer?.field ?? "", into: &out)
        }
        switch request.content {
        case .devicePush(_, let headers, _, let apnsID):
            // The fields of PushHeaders.fields, in its order, then apns-id.
            if let topic = headers.topic { writeIndexed(name: "apns-topic", staticName: nil, value: topic, into: &out) }
            writeIndexed(name: "apns-push-type", staticName: nil, value: "liveactivity", into: &out)
            writeIndexed(name: "apns-priority", staticName: nil, value: headers.priority == .high ? "10" : "5", into: &out)
            Self.writeLiteral(staticName: "apns-expiration", into: &out)
            Self.writeDecimal(headers.expiration, into: &out)
            if let apnsID {
                Self.writeLiteral(staticName: "apns-id", into: &out)
                HTTP2Wire.writeHPACKString(apnsID, into: &out)
            }
        case .general(_, let headers, _):
            encode(headers, into: &out)
        }
    }

    /// The fields of a request of the general form: the repeating ones through the table.
    private mutating func encode(_ headers: [(name: String, value: String)], into out: inout ByteBuffer) {
        for field in headers {
            let name = Self.lowercased(field.name)
            if Self.isIndexed(name) {
                writeIndexed(name: name, staticName: nil, value: field.value, into: &out)
            } else {
                Self.writeLiteral(name: name, into: &out)
                HTTP2Wire.writeHPACKString(field.value, into: &out)
            }
        }
    }

    /// The start of a literal field without indexing and with a literal name; its value follows.
    private static func writeLiteral(name: String, into out: inout ByteBuffer) {
        out.writeInteger(UInt8(0x00))
        HTTP2Wire.writeHPACKString(name, into: &out)
    }

    /// ``writeLiteral(name:into:)`` for a name known when compiling, copied as bytes (a short
    /// `String` is written through a generic path that showed in the profile).
    private static func writeLiteral(staticName name: StaticString, into out: inout ByteBuffer) {
        out.writeInteger(UInt8(0x00))
        out.writeInteger(UInt8(name.utf8CodeUnitCount))
        out.writeStaticString(name)
    }

    /// `value` as `String(value)` writes it, as an HPACK string literal, without making the
    /// string.
    private static func writeDecimal(_ value: Int64, into out: inout ByteBuffer) {
        guard value >= 0 else {
            HTTP2Wire.writeHPACKString(String(value), into: &out)
            return
        }
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        out.writeInteger(UInt8(digits))
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: digits) { bytes in
            var remaining = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                bytes[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            }
            return digits
        }
    }

    /// A reference to the dynamic table if it holds the field; otherwise a literal that adds it.
    private mutating func writeIndexed(name: String, staticName: Int?, value: String, into out: inout ByteBuffer) {
        if let position = entries.lastIndex(where: { $0.name == name && $0.value == value }) {
            HTTP2Wire.writeHPACKInteger(62 + (entries.count - 1 - position), prefixBits: 7, firstByte: 0x80, into: &out)
            return
        }
        if let staticName {
            HTTP2Wire.writeHPACKInteger(staticName, prefixBits: 6, firstByte: 0x40, into: &out)
        } else {
            out.writeInteger(UInt8(0x40))
            HTTP2Wire.writeHPACKString(name, into: &out)
        }
        HTTP2Wire.writeHPACKString(value, into: &out)
        add(Entry(name: name, value: value, size: name.utf8.count + value.utf8.count + 32))
    }

    /// Adds an entry as the decoder will (RFC 7541 §4.4): evict the oldest until it fits; one
    /// larger than the whole table empties it and is not added.
    private mutating func add(_ entry: Entry) {
        evict(toFit: entry.size)
        guard entry.size <= maxSize else { return }
        entries.append(entry)
        size += entry.size
    }

    private mutating func evict(toFit incoming: Int) {
        var drop = 0
        var remaining = size
        while drop < entries.count, remaining + incoming > maxSize {
            remaining -= entries[drop].size
            drop += 1
        }
        if drop > 0 {
            entries.removeFirst(drop)
            size = remaining
        }
    }

    /// HTTP/2 field names are lowercase (RFC 9113 §8.2.1).
    private static func lowercased(_ name: String) -> String {
        name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? name.lowercased() : name
    }
}
