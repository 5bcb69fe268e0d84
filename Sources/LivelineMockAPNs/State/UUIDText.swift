/// Canonical UUID text (`8-4-4-4-12` hex digits) to and from its 128 bits, without Foundation.
///
/// The mock writes an `apns-id` per push and keeps one per history entry; as text that is a
/// 36-byte heap string, as bits 16 bytes inline.
enum UUIDText {
    /// The 128 bits of a canonical UUID and whether its letters were upper case; nil for any
    /// other text, including mixed case, which could not be written back exactly.
    static func parse(_ text: String) -> (high: UInt64, low: UInt64, uppercase: Bool)? {
        var text = text
        text.makeContiguousUTF8()
        return text.utf8.withContiguousStorageIfAvailable(parse) ?? nil
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64, uppercase: Bool)? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
              bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        var nibbles = 0
        var sawLower = false, sawUpper = false
        for position in 0..<36 where position != 8 && position != 13 && position != 18 && position != 23 {
            let byte = bytes[position]
            let value: UInt8
            switch byte {
            case 48...57: value = byte &- 48
            case 97...102: value = byte &- 87; sawLower = true
            case 65...70: value = byte &- 55; sawUpper = true
            default: return nil
            }
            if nibbles < 16 {
                words.0 = words.0 << 4 | UInt64(value)
            } else {
                words.1 = words.1 << 4 | UInt64(value)
            }
            nibbles += 1
        }
        if sawLower && sawUpper { return nil }
        return (words.0, words.1, sawUpper)
    }

    /// The canonical text of 128 bits.
    static func format(high: UInt64, low: UInt64, uppercase: Bool = false) -> String {
        let letterBase: UInt8 = uppercase ? 55 : 87
        return String(unsafeUninitializedCapacity: 36) { bytes in
            // Five groups of 8, 4, 4, 4 and 12 digits, dash-separated: a nibble at a time
            // within a group, without a test per nibble for where the dashes go.
            var position = 0
            for group in 0..<5 {
                let (word, shift, count): (UInt64, Int, Int) = switch group {
                case 0: (high, 32, 8)
                case 1: (high, 16, 4)
                case 2: (high, 0, 4)
                case 3: (low, 48, 4)
                default: (low, 0, 12)
                }
                if group > 0 {
                    bytes[position] = UInt8(ascii: "-")
                    position += 1
                }
                for digit in (0..<count).reversed() {
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(shift + 4 * digit)) & 0xF
                    bytes[position] = nibble < 10 ? 48 + nibble : letterBase + nibble
                    position += 1
                }
            }
            return 36
        }
    }
}
