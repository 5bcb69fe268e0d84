import Crypto
import Foundation

/// The claims of a provider token that passed verification.
struct VerifiedToken: Sendable, Hashable {
    var keyID: String
    var teamID: String
    /// `iat`, in UNIX seconds.
    var issuedAt: Int64
    /// Where the token departs from the usual shape in ways APNs lets pass (``TokenShape``);
    /// each push made with the token reports them.
    var warnings: [String]
}

/// Verifies APNs provider tokens: ES256 JWTs signed with a team's `.p8` key (docs/apns.md §3).
///
/// Immutable and `Sendable`; every connection shares one. Verification costs a P-256 signature
/// check, so connections remember the token they verified (``ConnectionAuthState``) and call
/// this only when a client presents a new one.
///
/// It accepts what APNs accepts from the clients in use, not only Apple's example token: `iat`
/// as a numeric string or with a fraction, DER-encoded signatures, extra fields, whitespace.
/// Each of those becomes a warning instead of a rejection. It still rejects what APNs rejects:
/// another `alg`, an unknown `kid`, a missing or foreign `iss`, an `iat` that is no number,
/// a signature that does not verify over the bytes as received.
struct JWTVerifier: Sendable {
    /// The accepted keys, by Key ID.
    let keys: [String: ProviderKey]

    init(keys: [ProviderKey]) {
        var byID: [String: ProviderKey] = [:]
        for key in keys { byID[key.keyID] = key }
        self.keys = byID
    }

    /// Checks the token's shape, `alg`, `kid`, `iss`, `iat` and signature. Ages are the caller's job.
    func verify(_ token: Substring) -> Result<VerifiedToken, APNsError> {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64.decode(parts[0]),
            let claimsBytes = Base64.decode(parts[1]),
            let signatureBytes = Base64.decode(parts[2]),
            case .object(let header)? = try? JSONValue(parsing: headerBytes),
            case .object(let claims)? = try? JSONValue(parsing: claimsBytes)
        else { return .failure(.invalidProviderToken) }
        guard header["alg"]?.stringValue == "ES256",
            let keyID = header["kid"]?.stringValue,
            let key = keys[keyID],
            claims["iss"]?.stringValue == key.teamID,
            let publicKey = key.publicKey
        else { return .failure(.invalidProviderToken) }
        var warnings: [String] = []
        guard let issuedAt = TokenShape.issuedAt(claims["iat"], warnings: &warnings),
            let signature = TokenShape.signature(signatureBytes, warnings: &warnings)
        else { return .failure(.invalidProviderToken) }
        // The signing input is the two segments exactly as received: whitespace and key order
        // in the JSON are signed as they are, never normalized.
        let signingInput = Data(token.utf8[parts[0].startIndex..<parts[1].endIndex])
        guard publicKey.isValidSignature(signature, for: signingInput) else { return .failure(.invalidProviderToken) }
        TokenShape.fieldWarnings(
            header: header, headerBytes: headerBytes, claims: claims, claimsBytes: claimsBytes,
            into: &warnings)
        return .success(VerifiedToken(keyID: keyID, teamID: key.teamID, issuedAt: issuedAt, warnings: warnings))
    }
}
