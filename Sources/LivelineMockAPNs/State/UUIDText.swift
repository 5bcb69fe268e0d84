/// Canonical UUID text (`8-4-4-4-12` hex digits) to and from its 128 bits, without Foundation.
///
/// The mock writes an `apns-id` and an `apns-unique-id` per push and keeps one per history
/// entry; as text that is a 36-byte heap string, as bits 16 bytes inline. Both directions go a
/// byte (two digits) at a time through a table: a digit at a time with a test for the dashes
/// was measurable on every push.
enum UUIDText {
    /// The 128 bits of a canonical UUID and whether its letters were upper case; nil for any
    /// other text, including mixed case, which could not be written back exactly.
    static func parse(_ text: String) -> (high: UInt64, low: UInt64, uppercase: Bool)? {
        var text = text
        return text.withUTF8(parse)
    }

    /// Where each byte's two digits start in the text (the dashes sit between).
    private static let digitOffsets: [Int] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]

    /// Each character's value as a hex digit, with ``lowerFlag`` or ``upperFlag`` for a letter;
    /// ``invalid`` for anything else.
    private static let digitValues: [UInt8] = (0...255).map { byte -> UInt8 in
        switch UInt8(byte) {
        case 48...57: UInt8(byte) - 48
        case 97...102: (UInt8(byte) - 87) | lowerFlag
        case 65...70: (UInt8(byte) - 55) | upperFlag
        default: invalid
        }
    }
    private static let lowerFlag: UInt8 = 0x10
    private static let upperFlag: UInt8 = 0x20
    private static let invalid: UInt8 = 0x80

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64, uppercase: Bool)? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
            bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        return digitValues.withUnsafeBufferPointer { values in
            digitOffsets.withUnsafeBufferPointer { offsets -> (high: UInt64, low: UInt64, uppercase: Bool)? in
                var words: (UInt64, UInt64) = (0, 0)
                var seen: UInt8 = 0
                for index in 0..<16 {
                    let first = values[Int(bytes[offsets[index]])], second = values[Int(bytes[offsets[index] + 1])]
                    seen |= first | second
                    let byte = UInt64((first & 0xF) << 4 | second & 0xF)
                    if index < 8 {
                        words.0 = words.0 << 8 | byte
                    } else {
                        words.1 = words.1 << 8 | byte
                    }
                }
                guard seen & invalid == 0, seen & (lowerFlag | upperFlag) != lowerFlag | upperFlag else { return nil }
                return (words.0, words.1, seen & upperFlag != 0)
            }
        }
    }

    /// Each byte as its two hex digits, the first in the low 8 bits: lower case, then upper case.
    private static let digitPairs: [UInt16] = [87, 55].flatMap { letterBase -> [UInt16] in
        (0...255).map { byte -> UInt16 in
            let digit = { (nibble: Int) -> UInt16 in UInt16(nibble < 10 ? 48 + nibble : letterBase + nibble) }
            return digit(byte >> 4) | digit(byte & 0xF) << 8
        }
    }

    /// The canonical text of 128 bits.
    static func format(high: UInt64, low: UInt64, uppercase: Bool = false) -> String {
        String(unsafeUninitializedCapacity: 36) { bytes in
            digitPairs.withUnsafeBufferPointer { pairs in
                digitOffsets.withUnsafeBufferPointer { offsets in
                    let table = uppercase ? 256 : 0
                    for index in 0..<16 {
                        let word = index < 8 ? high : low
                        let pair = pairs[table + Int(truncatingIfNeeded: word >> UInt64(56 - 8 * (index & 7)) & 0xFF)]
                        bytes[offsets[index]] = UInt8(truncatingIfNeeded: pair)
                        bytes[offsets[index] + 1] = UInt8(truncatingIfNeeded: pair >> 8)
                    }
                }
            }
            bytes[8] = UInt8(ascii: "-")
            bytes[13] = UInt8(ascii: "-")
            bytes[18] = UInt8(ascii: "-")
            bytes[23] = UInt8(ascii: "-")
            return 36
        }
    }
}
