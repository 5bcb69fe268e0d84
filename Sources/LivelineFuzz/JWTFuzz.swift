import Crypto
import Foundation
import LivelineMockAPNs

extension FuzzTarget {
    /// The mock's provider-token check. With a first byte of 0 the rest is a header and claims
    /// (split at the first newline) that the fuzzer's own key signs, so the checks after the
    /// signature (`iat` forms, field warnings) are reached; otherwise the bytes are the token.
    static let jwt = FuzzTarget(
        name: "jwt", summary: "provider tokens as the mock checks them; first byte 0 signs the fuzzed header and claims"
    ) { bytes in
        let token: String
        if bytes.first == 0 {
            let rest = Array(bytes.dropFirst())
            let parts = rest.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
            let header = base64URL(Array(parts.first ?? []))
            let claims = base64URL(parts.count > 1 ? Array(parts[1]) : [])
            let signingInput = "\(header).\(claims)"
            guard let key = JWTFixture.key, let signature = try? key.signature(for: Data(signingInput.utf8)) else {
                return false
            }
            token = "\(signingInput).\(base64URL(Array(signature.rawRepresentation)))"
        } else {
            token = bytes.text
        }
        return MockAPNsServer.acceptsProviderToken(Substring(token), keys: JWTFixture.provider.map { [$0] } ?? [])
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A fixed key pair, so a seed signed once stays valid.
enum JWTFixture {
    /// 32 fixed bytes below the curve order: a valid scalar.
    static var key: P256.Signing.PrivateKey? {
        try? P256.Signing.PrivateKey(rawRepresentation: Data((1...32).map { UInt8($0) }))
    }
    static let provider: ProviderKey? = key.map {
        ProviderKey(keyID: "FUZZKEY123", teamID: "FUZZTEAM12", publicKey: $0.publicKey)
    }
}
