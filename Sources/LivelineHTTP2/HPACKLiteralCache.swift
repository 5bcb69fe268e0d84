/// The strings one connection's header blocks decoded from literals that the peer sent without
/// adding them to the dynamic table, keyed by their encoded bytes.
///
/// **Why.** HPACK encoders do not index some fields whatever they hold: nghttp2 (h2load, curl)
/// never indexes `:path`, and sends `authorization` as never-indexed, so every request carries
/// the same device path and the same provider token again, Huffman-coded. Decoding them again
/// and allocating a new `String` each time was most of what HPACK cost the mock; a hit here
/// costs a hash of the encoded bytes, one comparison and a reference.
///
/// What is kept: strings whose encoded form is ``minimumLength`` to ``maximumLength`` bytes
/// (shorter ones are decoded about as fast as they are hashed; longer ones are rare), at most
/// ``capacity`` of them and ``byteBudget`` bytes in all. When either is reached the cache is
/// emptied and fills again: a peer that never repeats a value (a fresh `apns-id` per request)
/// costs an insert per miss, and the memory stays bounded per connection. Raw and
/// Huffman-coded bytes are told apart, so the same bytes in both encodings are two keys.
struct HPACKLiteralCache {
    static let minimumLength = 16
    static let maximumLength = 512
    static let capacity = 256
    static let byteBudget = 64 * 1024
    /// Slots in the open-addressed table: twice the capacity, so probes stay short.
    private static let slots = 2 * capacity

    private struct Entry {
        var huffman: Bool
        var key: [UInt8]
        var value: String
        /// The decoded octets (before any UTF-8 repair the `String` did).
        var decodedLength: Int
    }

    /// Each slot's hash, 0 when the slot is empty (hashes are never 0); probed without
    /// touching the entries.
    private var hashes: [UInt64] = []
    private var entries: [Entry?] = []
    private(set) var count = 0
    /// Encoded plus decoded bytes of the entries.
    private(set) var bytes = 0
    /// How many times the cache was emptied because it was full.
    private(set) var flushes = 0

    init() {}

    /// Whether a literal of `length` encoded bytes is worth looking up.
    static func isCacheable(length: Int) -> Bool {
        length >= minimumLength && length <= maximumLength
    }

    /// The string decoded from `encoded` earlier, with its decoded octet count.
    func lookup(_ encoded: UnsafeRawBufferPointer, huffman: Bool, hash: UInt64) -> (value: String, decodedLength: Int)?
    {
        guard !hashes.isEmpty else { return nil }
        var slot = Int(truncatingIfNeeded: hash) & (Self.slots - 1)
        while hashes[slot] != 0 {
            if hashes[slot] == hash, let entry = entries[slot], entry.huffman == huffman,
                entry.key.withUnsafeBytes({ Self.equal($0, encoded) })
            {
                return (entry.value, entry.decodedLength)
            }
            slot = (slot + 1) & (Self.slots - 1)
        }
        return nil
    }

    /// Remembers what `encoded` decoded to (after a ``lookup(_:huffman:hash:)`` missed).
    mutating func insert(
        _ encoded: UnsafeRawBufferPointer, huffman: Bool, hash: UInt64, value: String, decodedLength: Int
    ) {
        let added = encoded.count + decodedLength
        if count + 1 > Self.capacity || bytes + added > Self.byteBudget {
            hashes = []
            entries = []
            count = 0
            bytes = 0
            flushes += 1
        }
        if hashes.isEmpty {
            hashes = Array(repeating: 0, count: Self.slots)
            entries = Array(repeating: nil, count: Self.slots)
        }
        var slot = Int(truncatingIfNeeded: hash) & (Self.slots - 1)
        while hashes[slot] != 0 { slot = (slot + 1) & (Self.slots - 1) }
        hashes[slot] = hash
        entries[slot] = Entry(huffman: huffman, key: Array(encoded), value: value, decodedLength: decodedLength)
        count += 1
        bytes += added
    }

    /// A 64-bit hash of the encoded bytes, eight at a time, never 0. Not seeded: a peer that makes its
    /// literals collide only lengthens its own probes, and the table never holds more than
    /// ``capacity`` entries.
    static func hash(_ bytes: UnsafeRawBufferPointer, huffman: Bool) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(truncatingIfNeeded: bytes.count) &* multiplier ^ (huffman ? 0xA5A5_A5A5_A5A5_A5A5 : 0)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            hash = (hash ^ word) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = (hash ^ tail) &* multiplier
        hash ^= hash >> 32
        return hash | 1
    }

    /// Byte-wise equality, eight bytes at a time.
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var offset = 0
        while offset + 8 <= a.count {
            guard
                a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < a.count {
            guard a[offset] == b[offset] else { return false }
            offset += 1
        }
        return true
    }
}
