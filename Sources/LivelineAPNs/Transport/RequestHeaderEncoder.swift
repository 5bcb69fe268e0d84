import LivelineCore
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
/// token is written from its parts (token, `PushHeaders`), with no header list built for it.
///
/// The encoder keeps its own copy of the dynamic table the server builds from these blocks,
/// with the same eviction rule, within the table size the server allows. It remembers where
/// each repeating field last went into the table, so a push whose fields are all there (every
/// push after a connection's first) finds them without searching and is written in one step:
/// on this per-push path, one bounds check instead of one per field.
///
/// Loop-bound: one per connection, used only on its event loop.
struct RequestHeaderEncoder {
    private struct Entry {
        var name: String
        var value: String
        var size: Int
    }

    /// The fields whose values repeat from request to request, each with its own memory of
    /// where its value last went into the table.
    private enum Repeating: Int, CaseIterable {
        case authority, authorization, topic, pushType, priority, channelID

        /// The repeating field a general request's header `name` is, if any (a string
        /// compare, not a hash, on this per-request path).
        init?(name: String) {
            switch name {
            case "apns-topic": self = .topic
            case "apns-push-type": self = .pushType
            case "apns-priority": self = .priority
            case "apns-channel-id": self = .channelID
            default: return nil
            }
        }
    }

    /// A repeating field's value and the number of its table entry (see ``insertions``).
    private struct Remembered {
        var value: String
        var insertion: Int
    }

    /// Oldest first; the newest is dynamic index 62.
    private var entries: [Entry] = []
    private var size = 0
    private var maxSize = 4096
    /// Entries ever added: the entry added as number `k` (from 0) is at dynamic index
    /// `62 + insertions - 1 - k` while it is in the table.
    private var insertions = 0
    /// Where each repeating field's value last went, by `Repeating`'s raw value.
    private var remembered = [Remembered?](repeating: nil, count: Repeating.allCases.count)
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
    mutating func encode(
        _ request: APNsRequest, scheme: String, authority: String, authorization: String?, into out: inout ByteBuffer
    ) {
        if let authorization, bearer?.token != authorization { bearer = (authorization, "bearer " + authorization) }
        if case .devicePush(let token, let headers, _, let apnsID) = request.content, request.method == .post,
            writeIndexedPush(
                token: token, headers: headers, scheme: scheme, authority: authority,
                withAuthorization: authorization != nil, into: &out)
        {
            if let apnsID {
                Self.writeLiteral(staticName: "apns-id", into: &out)
                HTTP2Wire.writeHPACKString(apnsID, into: &out)
            }
            return
        }
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
        writeIndexed(.authority, name: ":authority", staticName: 1, value: authority, into: &out)
        HTTP2Wire.writeHPACKInteger(4, prefixBits: 4, firstByte: 0x00, into: &out)
        switch request.content {
        case .devicePush(let token, _, _, _):
            let prefix: StaticString = "/3/device/"
            HTTP2Wire.writeHPACKInteger(
                prefix.utf8CodeUnitCount + token.utf8.count, prefixBits: 7, firstByte: 0, into: &out)
            out.writeStaticString(prefix)
            out.writeString(token)
        case .general(let path, _, _):
            HTTP2Wire.writeHPACKString(path, into: &out)
        }
        if authorization != nil {
            writeIndexed(.authorization, name: "authorization", staticName: 23, value: bearer?.field ?? "", into: &out)
        }
        switch request.content {
        case .devicePush(_, let headers, _, let apnsID):
            // The fields of PushHeaders.fields, in its order, then apns-id.
            if let topic = headers.topic {
                writeIndexed(.topic, name: "apns-topic", staticName: nil, value: topic, into: &out)
            }
            writeIndexed(.pushType, name: "apns-push-type", staticName: nil, value: "liveactivity", into: &out)
            writeIndexed(
                .priority, name: "apns-priority", staticName: nil, value: Self.priorityValue(headers.priority),
                into: &out)
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

    private static func priorityValue(_ priority: Priority) -> String {
        priority == .high ? "10" : "5"
    }

    /// The block of a POST to a device token (all but `apns-id`) when every repeating field of
    /// it is in the table already: written in one step. False, with nothing written, otherwise.
    private mutating func writeIndexedPush(
        token: String, headers: PushHeaders, scheme: String, authority: String, withAuthorization: Bool,
        into out: inout ByteBuffer
    ) -> Bool {
        guard pendingSizeUpdate == nil, headers.expiration >= 0,
            let authorityIndex = tableIndex(.authority, name: ":authority", value: authority),
            let pushTypeIndex = tableIndex(.pushType, name: "apns-push-type", value: "liveactivity"),
            let priorityIndex = tableIndex(
                .priority, name: "apns-priority", value: Self.priorityValue(headers.priority))
        else { return false }
        var authorizationIndex = 0
        if withAuthorization {
            guard let field = bearer?.field, let index = tableIndex(.authorization, name: "authorization", value: field)
            else { return false }
            authorizationIndex = index
        }
        var topicIndex = 0
        if let topic = headers.topic {
            guard let index = tableIndex(.topic, name: "apns-topic", value: topic) else { return false }
            topicIndex = index
        }
        let schemeByte = UInt8(scheme == "https" ? 0x80 | 7 : 0x80 | 6)
        let expiration = headers.expiration
        var token = token
        token.withUTF8 { tokenBytes in
            let prefix: StaticString = "/3/device/"
            let pathLength = prefix.utf8CodeUnitCount + tokenBytes.count
            let expirationName: StaticString = "apns-expiration"
            // Method, scheme and the path's 0x04: three bytes; five table references of at
            // most three bytes each (indices stay under 2^14); the path's length (at most
            // five bytes) and the path; the expiration's name (2 + 15) and value (1 + at most
            // 19 digits).
            let most = 3 + 5 * 3 + 5 + pathLength + 17 + 20
            out.writeWithUnsafeMutableBytes(minimumWritableBytes: most) { bytes in
                var at = 0
                bytes[0] = 0x80 | 3
                bytes[1] = schemeByte
                at = 2
                Self.put(authorityIndex, prefixBits: 7, firstByte: 0x80, into: bytes, at: &at)
                bytes[at] = 0x04
                at += 1
                Self.put(pathLength, prefixBits: 7, firstByte: 0, into: bytes, at: &at)
                Self.put(prefix, into: bytes, at: &at)
                UnsafeMutableRawBufferPointer(rebasing: bytes[at..<(at + tokenBytes.count)]).copyMemory(
                    from: UnsafeRawBufferPointer(tokenBytes))
                at += tokenBytes.count
                if withAuthorization {
                    Self.put(authorizationIndex, prefixBits: 7, firstByte: 0x80, into: bytes, at: &at)
                }
                if topicIndex > 0 { Self.put(topicIndex, prefixBits: 7, firstByte: 0x80, into: bytes, at: &at) }
                Self.put(pushTypeIndex, prefixBits: 7, firstByte: 0x80, into: bytes, at: &at)
                Self.put(priorityIndex, prefixBits: 7, firstByte: 0x80, into: bytes, at: &at)
                bytes[at] = 0x00
                bytes[at + 1] = UInt8(expirationName.utf8CodeUnitCount)
                at += 2
                Self.put(expirationName, into: bytes, at: &at)
                var digits = 1
                var rest = expiration / 10
                while rest > 0 {
                    digits += 1
                    rest /= 10
                }
                bytes[at] = UInt8(digits)
                var remaining = expiration
                for index in stride(from: at + digits, through: at + 1, by: -1) {
                    bytes[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                return at + 1 + digits
            }
        }
        return true
    }

    /// An HPACK integer written into `bytes` at `at`, which it advances.
    private static func put(
        _ value: Int, prefixBits: Int, firstByte: UInt8, into bytes: UnsafeMutableRawBufferPointer, at: inout Int
    ) {
        let limit = (1 << prefixBits) - 1
        if value < limit {
            bytes[at] = firstByte | UInt8(value)
            at += 1
            return
        }
        bytes[at] = firstByte | UInt8(limit)
        at += 1
        var rest = value - limit
        while rest >= 128 {
            bytes[at] = UInt8(rest & 0x7F | 0x80)
            at += 1
            rest >>= 7
        }
        bytes[at] = UInt8(rest)
        at += 1
    }

    private static func put(_ text: StaticString, into bytes: UnsafeMutableRawBufferPointer, at: inout Int) {
        let count = text.utf8CodeUnitCount
        UnsafeMutableRawBufferPointer(rebasing: bytes[at..<(at + count)])
            .copyMemory(from: UnsafeRawBufferPointer(start: text.utf8Start, count: count))
        at += count
    }

    /// The fields of a request of the general form: the repeating ones through the table.
    private mutating func encode(_ headers: [(name: String, value: String)], into out: inout ByteBuffer) {
        for field in headers {
            let name = Self.lowercased(field.name)
            if let repeating = Repeating(name: name) {
                writeIndexed(repeating, name: name, staticName: nil, value: field.value, into: &out)
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

    /// The dynamic-table index of the field `name: value`, if the table holds it: where
    /// `field` last went, or else a search (which then becomes what `field` remembers).
    private mutating func tableIndex(_ field: Repeating, name: String, value: String) -> Int? {
        let oldest = insertions - entries.count
        if let known = remembered[field.rawValue], known.insertion >= oldest, known.value == value {
            return 62 + insertions - 1 - known.insertion
        }
        guard let position = entries.lastIndex(where: { $0.name == name && $0.value == value }) else { return nil }
        remembered[field.rawValue] = Remembered(value: value, insertion: oldest + position)
        return 62 + entries.count - 1 - position
    }

    /// A reference to the dynamic table if it holds the field; otherwise a literal that adds it.
    private mutating func writeIndexed(
        _ field: Repeating, name: String, staticName: Int?, value: String, into out: inout ByteBuffer
    ) {
        if let index = tableIndex(field, name: name, value: value) {
            HTTP2Wire.writeHPACKInteger(index, prefixBits: 7, firstByte: 0x80, into: &out)
            return
        }
        if let staticName {
            HTTP2Wire.writeHPACKInteger(staticName, prefixBits: 6, firstByte: 0x40, into: &out)
        } else {
            out.writeInteger(UInt8(0x40))
            HTTP2Wire.writeHPACKString(name, into: &out)
        }
        HTTP2Wire.writeHPACKString(value, into: &out)
        if add(Entry(name: name, value: value, size: name.utf8.count + value.utf8.count + 32)) {
            remembered[field.rawValue] = Remembered(value: value, insertion: insertions - 1)
        }
    }

    /// Adds an entry as the decoder will (RFC 7541 §4.4): evict the oldest until it fits; one
    /// larger than the whole table empties it and is not added (false).
    private mutating func add(_ entry: Entry) -> Bool {
        evict(toFit: entry.size)
        guard entry.size <= maxSize else { return false }
        entries.append(entry)
        size += entry.size
        insertions += 1
        return true
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
