/// The decoding side's HPACK dynamic table (RFC 7541 §2.3.2, §4): the fields the peer asked us to
/// remember, newest first, within a size the peer chooses (at most what we advertised).
///
/// Entries keep their `String`s, so a field sent as an index costs a reference, not a copy. A
/// ring: adding evicts from the oldest end without moving the others.
struct HPACKDynamicTable {
    struct Entry {
        var name: String
        var value: String
        /// The name's octets as sent.
        var nameLength: Int
        /// RFC 7541 §4.1: the octets of name and value as sent, plus ``entryOverhead``.
        var size: Int
    }

    /// What RFC 7541 §4.1 adds to each entry's size.
    static let entryOverhead = 32

    /// The entries in a ring; `head` is the oldest.
    private var ring: [Entry?] = []
    private var head = 0
    private(set) var count = 0
    /// The sum of the entries' sizes.
    private(set) var size = 0
    /// The most the table may hold now (the peer's latest dynamic table size update).
    private(set) var maxSize: Int

    init(maxSize: Int) {
        self.maxSize = maxSize
    }

    /// The entry at `index`, 0 being the newest (HPACK index 62).
    subscript(index: Int) -> Entry? {
        guard index >= 0, index < count else { return nil }
        return ring[(head + count - 1 - index) % ring.count]
    }

    /// Adds an entry, evicting the oldest ones until it fits; an entry larger than the whole
    /// table empties it and is not added (§4.4).
    mutating func add(name: String, nameLength: Int, value: String, valueLength: Int) {
        let size = nameLength + valueLength + Self.entryOverhead
        evict(toFit: maxSize - size)
        guard size <= maxSize else { return }
        if count == ring.count { grow() }
        ring[(head + count) % ring.count] = Entry(name: name, value: value, nameLength: nameLength, size: size)
        count += 1
        self.size += size
    }

    /// A dynamic table size update: evicts what no longer fits.
    mutating func resize(to newSize: Int) {
        maxSize = newSize
        evict(toFit: newSize)
    }

    private mutating func evict(toFit limit: Int) {
        while size > max(limit, 0), count > 0 {
            size -= ring[head]?.size ?? 0
            ring[head] = nil
            head = (head + 1) % ring.count
            count -= 1
        }
        if count == 0 {
            head = 0
            size = 0
        }
    }

    private mutating func grow() {
        var larger = [Entry?](repeating: nil, count: max(8, ring.count * 2))
        for index in 0..<count { larger[index] = ring[(head + index) % ring.count] }
        ring = larger
        head = 0
    }
}
