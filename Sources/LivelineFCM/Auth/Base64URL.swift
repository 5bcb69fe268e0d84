import Foundation

/// Base64url without padding (RFC 7515 §2), the encoding of a JWT's three parts.
enum Base64URL {
    static func encode<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
