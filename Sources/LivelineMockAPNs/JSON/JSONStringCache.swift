/// The short strings one connection's push bodies repeat (content-state keys, values such as
/// a phase or a name), kept by their bytes so reading them again makes no new `String`.
///
/// **Why.** A Live Activity's updates carry the same keys and many of the same values push after
/// push; making a `String` of each (checking its UTF-8 on the way) was a fifth of reading a
/// body. A string of at most ``maximumLength`` bytes is its own key, as two machine words and a
/// length: a hit costs loading those, a multiply and two comparisons.
///
/// Direct-mapped: a string takes the slot its hash names, replacing what was there, so the cache
/// holds at most ``slots`` strings. A hit is found by exactly the bytes read and is what
/// `String(decoding:as:)` made of those bytes (UTF-8 repaired, as the reader always did).
/// Owned by one connection and used only on its event loop.
struct JSONStringCache {
    static let slots = 256
    static let maximumLength = 16

    /// A string's bytes in two little-endian words, zero-padded, and its length.
    private struct Key: Equatable {
        var low: UInt64
        var high: UInt64
        var count: Int
    }

    private var keys: [Key] = []
    private var strings: [String] = []

    init() {}

    /// The text of `bytes` (UTF-8 repaired as `String(decoding:as:)` does).
    mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count <= Self.maximumLength, bytes.count > 0 else { return String(decoding: bytes, as: UTF8.self) }
        if keys.isEmpty {
            keys = Array(repeating: Key(low: 0, high: 0, count: 0), count: Self.slots)
            strings = Array(repeating: "", count: Self.slots)
        }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
        let key = Key(low: words.0, high: words.1, count: bytes.count)
        var hash = (words.0 ^ UInt64(truncatingIfNeeded: bytes.count)) &* 0x9E37_79B9_7F4A_7C15
        hash = (hash ^ words.1) &* 0x9E37_79B9_7F4A_7C15
        let slot = Int(truncatingIfNeeded: hash >> 56)
        if keys[slot] == key { return strings[slot] }
        let string = String(decoding: bytes, as: UTF8.self)
        keys[slot] = key
        strings[slot] = string
        return string
    }

    /// How many slots hold a string, for tests.
    var count: Int { keys.filter { $0.count != 0 }.count }
}
