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

    static func hex(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
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
