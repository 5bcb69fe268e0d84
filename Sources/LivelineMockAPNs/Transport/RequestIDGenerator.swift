/// Makes `apns-id`, `apns-unique-id` and `apns-request-id` values: lowercase canonical UUIDs.
///
/// One per connection, used only on its event loop: a random 64-bit prefix and a counter, so
/// ids are unique without a lock or a system call per request.
struct RequestIDGenerator {
    private let prefix: UInt64
    private var counter: UInt64 = 0

    init() {
        var random = SystemRandomNumberGenerator()
        prefix = random.next()
    }

    /// A fresh version-4-shaped UUID.
    mutating func next() -> String {
        counter &+= 1
        var mixer = SplitMix64(seed: prefix ^ counter)
        var high = prefix ^ (counter << 32)
        var low = mixer.next()
        // Version 4 and RFC 4122 variant bits.
        high = (high & ~0x0000_0000_0000_F000) | 0x0000_0000_0000_4000
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { bytes in
            var position = 0
            for nibbleIndex in 0..<32 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    bytes[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = nibbleIndex < 16 ? high : low
                let shift = UInt64(60 - (nibbleIndex % 16) * 4)
                let nibble = UInt8(truncatingIfNeeded: (word >> shift) & 0xF)
                bytes[position] = nibble < 10 ? 48 + nibble : 87 + nibble
                position += 1
            }
            return 36
        }
    }
}
