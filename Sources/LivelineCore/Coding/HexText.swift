/// Lowercase hexadecimal text: device tokens, body-hash event ids, signatures, key fingerprints.
public enum HexText {
    /// The sixteen digits, as bytes.
    public static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends the two digits of `byte` to `text`.
    @inlinable
    public static func append(_ byte: UInt8, to text: inout [UInt8]) {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }

    /// `bytes` as lowercase hex, two digits a byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes { append(byte, to: &text) }
        return String(decoding: text, as: UTF8.self)
    }

    /// `words` as lowercase hex, sixteen digits a word, most significant first.
    public static func encode(words: some Sequence<UInt64>) -> String {
        var text: [UInt8] = []
        for word in words {
            for shift in stride(from: 60, through: 0, by: -4) {
                text.append(digits[Int((word >> UInt64(shift)) & 0xF)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
