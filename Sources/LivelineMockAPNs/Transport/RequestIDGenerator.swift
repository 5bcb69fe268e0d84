import Liveline

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
        return UUIDText.format(high: high, low: low)
    }
}
