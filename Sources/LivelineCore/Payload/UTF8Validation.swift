/// Finds the first byte that breaks UTF-8 (RFC 3629): a stray continuation byte, a sequence
/// cut short, an overlong form, a surrogate (U+D800–U+DFFF) or a value past U+10FFFF.
///
/// Readers of text from outside refuse such bytes rather than decode them with Swift's
/// repairing `String(decoding:as:)`, which turns each into U+FFFD and so makes different byte
/// strings read as the same text.
public enum UTF8Validation {
    /// The offset of the first byte of the first invalid sequence; nil when all of `bytes` is UTF-8.
    public static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            let count = buffer.count
            var i = 0
            while i < count {
                let lead = buffer[i]
                if lead < 0x80 { i += 1; continue }
                let length: Int
                var low: UInt8 = 0x80, high: UInt8 = 0xBF
                switch lead {
                case 0xC2...0xDF: length = 2
                case 0xE0: length = 3; low = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED: length = 3; high = 0x9F
                case 0xF0: length = 4; low = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4: length = 4; high = 0x8F
                default: return i
                }
                guard i + length <= count else { return i }
                // The second byte's range depends on the lead (overlongs, surrogates, the
                // U+10FFFF ceiling); the rest are plain continuation bytes.
                guard buffer[i + 1] >= low, buffer[i + 1] <= high else { return i }
                for k in 2..<max(2, length) where buffer[i + k] & 0xC0 != 0x80 { return i }
                i += length
            }
            return nil
        }
    }
}
