import Foundation
import LivelineCore
import _CryptoExtras

/// The signed JWT a service account exchanges for an OAuth 2.0 access token (RFC 7523, Google's
/// "OAuth 2.0 for server to server applications").
///
/// Header `{"alg":"RS256","typ":"JWT","kid":<private_key_id>}`; claims `{"iss":<client_email>,
/// "scope":<scope>,"aud":<token_uri>,"iat":<now>,"exp":<now + 1 hour>}`; signed RSASSA-PKCS1-v1_5
/// with SHA-256 (RS256), not PSS, which Google refuses.
public struct OAuthAssertion: Sendable, Hashable, CustomStringConvertible {
    /// What FCM's HTTP v1 API asks of a token.
    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The longest lifetime Google accepts, and the one asked for.
    public static let lifetime: Int64 = 3600

    /// `header.claims.signature`.
    public let value: String
    /// UNIX seconds.
    public let issuedAt: Int64
    public let expiresAt: Int64

    /// Signs an assertion for `account`, issued at `issuedAt` (UNIX seconds).
    public init(account: ServiceAccount, issuedAt: Int64, scope: String = messagingScope) throws(FCMAuthError) {
        var header = JSONWriter(capacity: 96)
        header.raw(#"{"alg":"RS256","typ":"JWT""#)
        if let kid = account.privateKeyID {
            header.raw(#","kid":"#)
            header.string(kid)
        }
        header.raw(UInt8(ascii: "}"))
        let expiresAt = issuedAt + Self.lifetime
        var claims = JSONWriter(capacity: 256)
        claims.raw(#"{"iss":"#)
        claims.string(account.clientEmail)
        claims.raw(#","scope":"#)
        claims.string(scope)
        claims.raw(#","aud":"#)
        claims.string(account.tokenURI)
        claims.raw(#","iat":"#)
        claims.int(issuedAt)
        claims.raw(#","exp":"#)
        claims.int(expiresAt)
        claims.raw(UInt8(ascii: "}"))
        let input = Base64URL.encode(header.bytes) + "." + Base64URL.encode(claims.bytes)
        let signature: _RSA.Signing.RSASignature
        do {
            signature = try account.privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        } catch {
            throw FCMAuthError.signing("RS256 signing with the service account's key failed: \(error)")
        }
        value = input + "." + Base64URL.encode(signature.rawRepresentation)
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// Shows when it was issued, never the assertion.
    public var description: String { "OAuthAssertion(issued \(issuedAt), expires \(expiresAt))" }
}

/// Why Liveline could not get an access token for FCM.
public enum FCMAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The assertion could not be signed.
    case signing(String)
    /// The token endpoint refused the assertion (`{"error", "error_description"}`): a wrong key,
    /// a disabled account, a clock far off. Nothing works until it is fixed.
    case refused(status: Int, error: String, description: String?)
    /// The token endpoint's answer was not what OAuth 2.0 promises.
    case malformedAnswer(status: Int, String)

    public var description: String {
        switch self {
        case .signing(let message): return message
        case .refused(let status, let error, let description):
            let detail = description.map { ": \($0)" } ?? ""
            return "the token endpoint refused the service account (\(status) \(error)\(detail))"
        case .malformedAnswer(let status, let message):
            return "the token endpoint answered \(status) with \(message)"
        }
    }

    /// Whether trying again later may succeed (the endpoint was unavailable), rather than a
    /// configuration that must be fixed.
    public var isTransient: Bool {
        switch self {
        case .refused(let status, _, _), .malformedAnswer(let status, _): status == 429 || status >= 500
        case .signing: false
        }
    }
}
