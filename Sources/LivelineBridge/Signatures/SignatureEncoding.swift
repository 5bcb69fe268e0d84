import Liveline

/// How a sender writes a signature's bytes as text: lowercase hex or standard base64.
///
/// Verification never builds the expected signature's text: it decodes what was presented and
/// compares the bytes with the computed MAC as it goes, in constant time, with no allocation.
/// Hex is read in either case; base64 in the standard or the URL-safe alphabet, with or
/// without `=` padding.
public enum SignatureEncoding: String, Sendable, Hashable, CaseIterable {
    /// Hexadecimal: written lowercase, read in either case.
    case hex
    /// Base64: written in the standard alphabet with padding, read in either alphabet.
    case base64

    /// Whether `text` decodes to exactly the bytes of `mac`. Once the decoded length is known to
    /// match, every byte is compared (no early exit).
    func matches(_ text: some Collection<UInt8>, mac: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var difference: UInt8 = 0
        let valid = decode(text) { byte in
            if index < mac.count { difference |= byte ^ mac[index] }
            index += 1
        }
        return valid && index == mac.count && difference == 0
    }

    /// Whether `text` is valid in this encoding (and not empty): a header whose signatures are
    /// all invalid is malformed (400), not merely wrong (401).
    func isValid(_ text: some Collection<UInt8>) -> Bool {
        !text.isEmpty && decode(text) { _ in }
    }

    /// The bytes `text` encodes; nil when it is not valid in this encoding.
    public func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        return decode(text) { bytes.append($0) } ? bytes : nil
    }

    /// The text of `bytes` in this encoding (lowercase hex; padded standard base64).
    public func encode(_ bytes: some Sequence<UInt8>) -> String {
        switch self {
        case .hex:
            return HexText.encode(bytes)
        case .base64:
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
            var text: [UInt8] = []
            var accumulator: UInt32 = 0
            var bits = 0
            for byte in bytes {
                accumulator = (accumulator << 8) | UInt32(byte)
                bits += 8
                while bits >= 6 {
                    bits -= 6
                    text.append(alphabet[Int((accumulator >> UInt32(bits)) & 0x3F)])
                }
            }
            if bits > 0 { text.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 0x3F)]) }
            while text.count % 4 != 0 { text.append(UInt8(ascii: "=")) }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// Decodes `text`, handing each byte to `emit`; false when `text` is not valid.
    func decode(_ text: some Collection<UInt8>, _ emit: (UInt8) -> Void) -> Bool {
        switch self {
        case .hex: Self.decodeHex(text, emit)
        case .base64: Self.decodeBase64(text, emit)
        }
    }

    private static func decodeHex(_ text: some Collection<UInt8>, _ emit: (UInt8) -> Void) -> Bool {
        guard text.count % 2 == 0 else { return false }
        var valid = true
        var high: UInt8? = nil
        for character in text {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character &- UInt8(ascii: "A") &+ 10
            default: valid = false; nibble = 0
            }
            if let first = high {
                emit(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return valid
    }

    private static func decodeBase64(_ text: some Collection<UInt8>, _ emit: (UInt8) -> Void) -> Bool {
        var padding = 0
        var symbols = 0
        var accumulator: UInt32 = 0
        var bits = 0
        var valid = true
        for character in text {
            if character == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            // A symbol after padding, or more than two `=`, is not base64.
            if padding > 0 { valid = false }
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character &- UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character &- UInt8(ascii: "a") &+ 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character &- UInt8(ascii: "0") &+ 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            default: valid = false; value = 0
            }
            symbols += 1
            accumulator = (accumulator << 6 | UInt32(value)) & 0xFFFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                emit(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        if padding > 2 || symbols % 4 == 1 { return false }
        if padding > 0, (symbols + padding) % 4 != 0 { return false }
        return valid
    }
}
