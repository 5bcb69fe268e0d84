import Crypto
import Foundation
import Liveline
import LivelineMockAPNs

/// A provider key made for a test, and the JWTs it signs (docs/apns.md §3).
struct TestKey {
    /// How the signature segment encodes ECDSA's `r` and `s`.
    enum SignatureEncoding: Sendable {
        /// `r‖s`, 64 bytes, as JWS (RFC 7518 §3.4) wants.
        case raw
        /// ASN.1 DER, as Java's `SHA256withECDSA` writes it.
        case der
    }

    let privateKey = P256.Signing.PrivateKey()
    let keyID: String
    let teamID: String

    init(keyID: String = "ABC123DEFG", teamID: String = "DEF123GHIJ") {
        self.keyID = keyID
        self.teamID = teamID
    }

    var providerKey: ProviderKey { ProviderKey(keyID: keyID, teamID: teamID, publicKey: privateKey.publicKey) }

    /// The `.p8` PEM of the key.
    var p8: String { privateKey.pemRepresentation }

    /// A JWT issued at `issuedAt` (UNIX seconds), optionally with other `kid` / `iss`.
    func token(issuedAt: Int64, kid: String? = nil, iss: String? = nil) -> String {
        token(
            header: #"{"alg":"ES256","kid":"\#(kid ?? keyID)"}"#,
            claims: #"{"iss":"\#(iss ?? teamID)","iat":\#(issuedAt)}"#)
    }

    /// A JWT issued at the clock's current time.
    func token(at millis: Millis) -> String { token(issuedAt: millis / 1000) }

    /// A JWT whose header and claims are exactly these JSON texts, byte for byte, signed as they are.
    func token(header: String, claims: String, signature encoding: SignatureEncoding = .raw) -> String {
        let input = signingInput(header: header, claims: claims)
        return input + "." + base64URL(signature(for: input, encoding))
    }

    /// The first two segments of a JWT: the base64url of the header and of the claims.
    func signingInput(header: String, claims: String) -> String {
        base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
    }

    /// The signature of `input` in the given encoding; empty if signing fails.
    func signature(for input: String, _ encoding: SignatureEncoding = .raw) -> Data {
        guard let signature = try? privateKey.signature(for: Data(input.utf8)) else { return Data() }
        switch encoding {
        case .raw: return signature.rawRepresentation
        case .der: return signature.derRepresentation
        }
    }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
