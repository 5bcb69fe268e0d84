import Crypto

/// Why a provider key could not be loaded.
public struct ProviderKeyError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// A signing key the mock accepts JWTs from: the public half of a `.p8` key, its Key ID and the
/// team it belongs to.
public struct ProviderKey: Sendable {
    /// The 10-character Key ID (`kid` in the JWT header).
    public var keyID: String
    /// The Team ID (`iss` in the JWT claims).
    public var teamID: String
    /// The public key, in X9.63 form. Kept as bytes because swift-crypto's key type is not
    /// `Sendable` on every platform; it is rebuilt for the rare signature check.
    public var publicKeyX963: [UInt8]

    /// The key that verifies signatures.
    public var publicKey: P256.Signing.PublicKey? {
        try? P256.Signing.PublicKey(x963Representation: publicKeyX963)
    }

    public init(keyID: String, teamID: String, publicKey: P256.Signing.PublicKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKeyX963 = Array(publicKey.x963Representation)
    }

    /// Loads a key from PEM text: the `.p8` private key Apple hands out (PKCS#8), or its public key.
    public init(keyID: String, teamID: String, pem: String) throws(ProviderKeyError) {
        if let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self.init(keyID: keyID, teamID: teamID, publicKey: privateKey.publicKey)
        } else if let publicKey = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            self.init(keyID: keyID, teamID: teamID, publicKey: publicKey)
        } else {
            throw ProviderKeyError(description: "key \(keyID): not a P-256 private key (.p8) or public key in PEM")
        }
    }
}
