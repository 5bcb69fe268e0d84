import Crypto
import Foundation

/// A provider authentication token: the ES256 JWT APNs expects in `authorization: bearer …`.
///
/// Header `{"alg":"ES256","kid":<key id>}`, claims `{"iss":<team id>,"iat":<UNIX seconds>}`,
/// signed with the team's P-256 key. The signature is the raw `r‖s` (64 bytes), base64url,
/// not DER: APNs rejects DER signatures.
public struct ProviderToken: Sendable, Hashable, CustomStringConvertible {
    /// The JWT, `header.claims.signature`.
    public let value: String
    /// When it was issued, UNIX seconds.
    public let issuedAt: Int64

    /// Signs a new token issued at `issuedAt` (UNIX seconds).
    public init(key: SigningKey, issuedAt: Int64) {
        let header = Self.base64URL(Data(#"{"alg":"ES256","kid":"\#(Self.jsonEscaped(key.keyID))"}"#.utf8))
        let claims = Self.base64URL(Data(#"{"iss":"\#(Self.jsonEscaped(key.teamID))","iat":\#(issuedAt)}"#.utf8))
        let input = header + "." + claims
        let signature: Data
        do {
            signature = try key.sign(Data(input.utf8))
        } catch {
            // P-256 signing of a byte string does not fail with a valid key; keep the type honest.
            signature = Data()
        }
        value = input + "." + Self.base64URL(signature)
        self.issuedAt = issuedAt
    }

    /// Shows when it was issued, never the token.
    public var description: String { "ProviderToken(issued \(issuedAt))" }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func jsonEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

/// When to sign a new provider token, following APNs's rules.
///
/// APNs rejects a token older than an hour (`ExpiredProviderToken`) and a token changed on a
/// connection more often than every 20 minutes (`TooManyProviderTokenUpdates`). So
/// ``APNsClient`` reuses a token until it is ``renewAfter`` old (50 minutes), and when APNs
/// says it expired, renews it only once it is ``minimumAge`` old (20 minutes): a younger
/// token called expired means the clock is off, and a new one would be refused.
public struct ProviderTokenPolicy: Sendable {
    /// The age (seconds) at which a token is replaced before it is sent: well inside APNs's hour.
    public var renewAfter: Int64 = 50 * 60
    /// The youngest (seconds) a token APNs said expired may be replaced: APNs's minimum between updates.
    public var minimumAge: Int64 = 20 * 60

    /// APNs's own limits: renew at 50 minutes, never younger than 20.
    public init() {}

    /// Whether a token issued at `issuedAt` should be replaced at `now` (UNIX seconds).
    public func shouldRenew(issuedAt: Int64, now: Int64) -> Bool {
        now - issuedAt >= renewAfter
    }

    /// Whether a token issued at `issuedAt`, which APNs said expired, may be replaced at `now`
    /// (UNIX seconds): once it is ``minimumAge`` old, or when the clock went back past it.
    public func mayRenewAfterExpiry(issuedAt: Int64, now: Int64) -> Bool {
        now - issuedAt >= minimumAge || now < issuedAt
    }
}
