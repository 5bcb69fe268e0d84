import Crypto
import Foundation
import Liveline
import LivelineMockAPNs

/// A provider key made for a test, and the JWTs it signs (APNS.md §3).
struct TestKey {
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
        let header = #"{"alg":"ES256","kid":"\#(kid ?? keyID)"}"#
        let claims = #"{"iss":"\#(iss ?? teamID)","iat":\#(issuedAt)}"#
        let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        let signature = (try? privateKey.signature(for: Data(input.utf8)).rawRepresentation) ?? Data()
        return input + "." + base64URL(signature)
    }

    /// A JWT issued at the clock's current time.
    func token(at millis: Millis) -> String { token(issuedAt: millis / 1000) }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
