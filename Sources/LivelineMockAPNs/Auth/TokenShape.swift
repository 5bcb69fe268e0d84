import Crypto

/// The provider-token shapes APNs lets pass beyond Apple's example, and the warning for each.
///
/// Apple documents the header `{"alg":"ES256","kid":…}` and the claims `{"iss":…,"iat":…}`
/// (docs/apns.md §3). Clients in wide use send more, and APNs has accepted them for years:
///
/// | client | departs with | warned |
/// |---|---|---|
/// | APNSwift 5.x–6.x | `iat` as a string, `kid` in the claims, `typ`, pretty-printed JSON | all but `typ` |
/// | Pushy (Java) | a DER-encoded signature (`SHA256withECDSA`) | yes |
/// | PyAPNs2 | `iat` from `time.time()`, with a fraction | yes |
/// | node-apn, aioapns, PyJWT, golang-jwt | `typ: "JWT"` | no |
///
/// `typ: "JWT"` is what RFC 7519 §5.1 recommends and nearly every JWT library writes, so it is
/// not worth a warning; any other `typ` is.
enum TokenShape {
    /// The header fields Apple's token has, plus `typ`.
    private static let headerFields: Set<String> = ["alg", "kid", "typ"]
    /// The claims Apple's token has.
    private static let claimFields: Set<String> = ["iss", "iat"]

    /// `iat` in UNIX seconds: a JSON number, or a string of decimal digits. Nil for anything else,
    /// which APNs rejects as InvalidProviderToken.
    static func issuedAt(_ value: JSONValue?, warnings: inout [String]) -> Int64? {
        switch value {
        case .int(let seconds)?:
            return seconds
        case .double(let seconds)?:
            guard seconds.isFinite, let whole = Int64(exactly: seconds.rounded(.down)) else { return nil }
            warnings.append("provider token: iat is not an integer (\(seconds)); Apple documents whole seconds")
            return whole
        case .string(let text)?:
            guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let seconds = Int64(text)
            else { return nil }
            warnings.append("provider token: iat is a string (\"\(text)\"); RFC 7519 wants a number")
            return seconds
        default:
            return nil
        }
    }

    /// The ES256 signature: raw `r‖s` (64 bytes) as JWS wants, or DER as Java's
    /// `SHA256withECDSA` writes it. Nil when it is neither.
    static func signature(_ bytes: [UInt8], warnings: inout [String]) -> P256.Signing.ECDSASignature? {
        if bytes.count == 64 { return try? P256.Signing.ECDSASignature(rawRepresentation: bytes) }
        guard bytes.first == 0x30, let der = try? P256.Signing.ECDSASignature(derRepresentation: bytes) else {
            return nil
        }
        warnings.append(
            "provider token: signature is DER-encoded (\(bytes.count) bytes); RFC 7518 §3.4 wants raw r‖s (64 bytes)")
        return der
    }

    /// Warnings for fields beyond Apple's token, a `typ` other than `JWT`, and whitespace.
    static func fieldWarnings(
        header: JSONObject, headerBytes: [UInt8], claims: JSONObject, claimsBytes: [UInt8],
        into warnings: inout [String]
    ) {
        if let type = header["typ"], type.stringValue?.uppercased() != "JWT" {
            warnings.append("provider token: typ is \(type.jsonText); RFC 7519 suggests \"JWT\" or none")
        }
        for key in header.keys where !headerFields.contains(key) {
            warnings.append("provider token: the header has \"\(key)\"; Apple's has only alg and kid")
        }
        for key in claims.keys where !claimFields.contains(key) {
            warnings.append("provider token: the claims have \"\(key)\"; Apple's have only iss and iat")
        }
        let subject: String? =
            switch (hasWhitespace(headerBytes), hasWhitespace(claimsBytes)) {
            case (true, true): "the header and claims are"
            case (true, false): "the header is"
            case (false, true): "the claims are"
            case (false, false): nil
            }
        if let subject {
            warnings.append(
                "provider token: \(subject) pretty-printed JSON; APNs verifies it as sent, but compact JSON is usual")
        }
    }

    /// Whether JSON text has whitespace between its tokens (not inside strings).
    static func hasWhitespace(_ json: [UInt8]) -> Bool {
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                return true
            }
        }
        return false
    }
}
