extension Sequence<UInt8> {
    /// The bytes as lowercase hex, for body-hash event ids and key fingerprints.
    var hexDigits: String {
        var out = ""
        for byte in self {
            let text = String(byte, radix: 16)
            out += byte < 16 ? "0" + text : text
        }
        return out
    }
}
