import Crypto
import Foundation

/// The claims of a provider token that passed verification.
struct VerifiedToken: Sendable, Hashable {
    var keyID: String
    var teamID: String
    /// `iat`, in UNIX seconds.
    var issuedAt: Int64
}

/// Verifies APNs provider tokens: ES256 JWTs signed with a team's `.p8` key (APNS.md §3).
///
/// Immutable and `Sendable`; every connection shares one. Verification costs a P-256 signature
/// check, so connections remember the token they verified (``ConnectionAuthState``) and call
/// this only when a client presents a new one.
struct JWTVerifier: Sendable {
    /// The accepted keys, by Key ID.
    let keys: [String: ProviderKey]

    init(keys: [ProviderKey]) {
        var byID: [String: ProviderKey] = [:]
        for key in keys { byID[key.keyID] = key }
        self.keys = byID
    }

    /// Checks the token's shape, `alg`, `kid`, `iss` and signature. Ages are the caller's job.
    func verify(_ token: Substring) -> Result<VerifiedToken, APNsError> {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64.decode(parts[0]),
              let claimsBytes = Base64.decode(parts[1]),
              let signature = Base64.decode(parts[2]),
              case .object(let header)? = try? JSONParser.parse(headerBytes),
              case .object(let claims)? = try? JSONParser.parse(claimsBytes)
        else { return .failure(.invalidProviderToken) }
        guard header["alg"]?.stringValue == "ES256",
              let keyID = header["kid"]?.stringValue,
              let key = keys[keyID],
              claims["iss"]?.stringValue == key.teamID
        else { return .failure(.invalidProviderToken) }
        guard case .int(let issuedAt)? = claims["iat"] else { return .failure(.invalidProviderToken) }
        guard signature.count == 64,
              let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        else { return .failure(.invalidProviderToken) }
        let signingInput = Data(token.utf8[parts[0].startIndex..<parts[1].endIndex])
        guard let publicKey = key.publicKey, publicKey.isValidSignature(ecdsa, for: signingInput) else { return .failure(.invalidProviderToken) }
        return .success(VerifiedToken(keyID: keyID, teamID: key.teamID, issuedAt: issuedAt))
    }
}
