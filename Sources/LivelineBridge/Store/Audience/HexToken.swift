import Foundation

/// Tokens are stored as their bytes (half the size of their hex digits) and handed back as
/// lower-case hex, as APNs' paths take them.
enum HexToken {
    /// The bytes of hex digits; nil for anything that is not an even number of hex digits.
    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Written straight into the string's storage: a fan-out makes one per follower it reads.
    static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = digit(byte >> 4)
                out[2 * index + 1] = digit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x61 - 10 + nibble
    }

    /// A token as stored: its bytes. Callers pass hex (the API and the import check it); anything
    /// else would be stored as its UTF-8 and not read back as it was.
    static func stored(_ token: String?) -> SQLValue {
        guard let token else { return .null }
        return .bytes(bytes(token) ?? Array(token.utf8))
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}
