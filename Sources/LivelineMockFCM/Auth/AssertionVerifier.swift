import Foundation
import LivelineCore
import _CryptoExtras

/// The mock's token endpoint's rules: a service account's signed assertion (RFC 7523) in, the
/// grant of an access token out, or Google's OAuth error.
///
/// The form must be `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`; the
/// JWT's header `alg` must be `RS256` (and `kid`, when given, the account's key id); its signature
/// must verify with the account's public key (RSASSA-PKCS1-v1_5, SHA-256); `iss` must be a known
/// account, `aud` this endpoint (or Google's, see ``googleEndpoint``), `scope` must include one that lets FCM send (``sendingScopes``:
/// FCM's own, or the wider Firebase and Cloud Platform scopes the Admin SDKs ask for); and `iat`/`exp` must span at most an
/// hour around now.
public struct AssertionVerifier: Sendable {
    /// A service account the mock knows: the public half of its key.
    public struct Account: Sendable {
        public var email: String
        public var project: String
        public var keyID: String?
        public var publicKey: _RSA.Signing.PublicKey

        public init(email: String, project: String, keyID: String?, publicKey: _RSA.Signing.PublicKey) {
            self.email = email
            self.project = project
            self.keyID = keyID
            self.publicKey = publicKey
        }
    }

    /// What the endpoint grants: an access token's owner, project and scopes.
    public struct Grant: Sendable, Hashable {
        public var email: String
        public var project: String
        public var scopes: [String]
    }

    /// Google's OAuth error answer, `{"error": …, "error_description": …}`.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public var status: Int
        public var error: String
        public var reason: String

        public var description: String { "\(status) \(error): \(reason)" }

        public var body: [UInt8] {
            var writer = JSONWriter(capacity: 128 + reason.utf8.count)
            writer.raw(#"{"error":"#)
            writer.string(error)
            writer.raw(#","error_description":"#)
            writer.string(reason)
            writer.raw(UInt8(ascii: "}"))
            return writer.bytes
        }

        static func invalidGrant(_ reason: String) -> Refusal {
            Refusal(status: 400, error: "invalid_grant", reason: reason)
        }
    }

    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Scopes under which an access token may send with FCM.
    public static let sendingScopes: Set<String> = [
        messagingScope, "https://www.googleapis.com/auth/firebase", "https://www.googleapis.com/auth/cloud-platform",
    ]
    /// How far a clock may be off, as Google allows.
    public static let skew: Int64 = 300

    public var accounts: [String: Account]
    /// The endpoint's own URL: the `aud` an assertion must name.
    public var audience: String
    /// Google's token endpoint, which google-auth (and so the Admin SDKs) puts in `aud` whatever
    /// the key file's `token_uri`; a mock standing in for it takes it as its own.
    public static let googleEndpoint = "https://oauth2.googleapis.com/token"

    public init(accounts: [Account], audience: String) {
        self.accounts = Dictionary(accounts.map { ($0.email, $0) }, uniquingKeysWith: { _, last in last })
        self.audience = audience
    }

    /// Checks a token request's form body at `now` (UNIX seconds).
    public func verify(form body: [UInt8], now: Int64) -> Result<Grant, Refusal> {
        do throws(Refusal) {
            return .success(try check(Self.form(body), now: now))
        } catch {
            return .failure(error)
        }
    }

    private func check(_ form: [String: String], now: Int64) throws(Refusal) -> Grant {
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            throw Refusal(
                status: 400, error: "unsupported_grant_type",
                reason: "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"] else { throw .invalidGrant("Missing required parameter: assertion") }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Self.base64URL(parts[0]), let claimBytes = Self.base64URL(parts[1]),
            let signature = Self.base64URL(parts[2]),
            case .object(let header)? = try? JSONParser.parse(headerBytes),
            case .object(let claims)? = try? JSONParser.parse(claimBytes)
        else { throw .invalidGrant("Invalid JWT: the assertion is not three base64url parts of JSON") }
        guard case .string("RS256")? = header["alg"] else {
            throw .invalidGrant("Invalid JWT: alg must be RS256, found \(header["alg"]?.templateText ?? "none")")
        }
        guard case .string(let issuer)? = claims["iss"], let account = accounts[issuer] else {
            throw .invalidGrant("Invalid grant: account not found")
        }
        if case .string(let kid)? = header["kid"], let known = account.keyID, kid != known {
            throw .invalidGrant("Invalid JWT Signature.")
        }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard
            account.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
        else { throw .invalidGrant("Invalid JWT Signature.") }
        guard case .string(let audience)? = claims["aud"], audience == self.audience || audience == Self.googleEndpoint
        else {
            throw .invalidGrant("Invalid JWT: the audience must be \(self.audience), this token endpoint")
        }
        guard case .int(let issuedAt)? = claims["iat"], case .int(let expires)? = claims["exp"],
            Int64(expires) > Int64(issuedAt), Int64(expires) - Int64(issuedAt) <= 3600,
            Int64(issuedAt) <= now + Self.skew, Int64(expires) >= now - Self.skew
        else {
            throw .invalidGrant(
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            )
        }
        guard case .string(let scope)? = claims["scope"] else {
            throw Refusal(status: 400, error: "invalid_scope", reason: "Empty or missing scope not allowed.")
        }
        let scopes = scope.split(separator: " ").map(String.init)
        guard scopes.contains(where: Self.sendingScopes.contains) else {
            throw Refusal(
                status: 400, error: "invalid_scope", reason: "The scope does not include \(Self.messagingScope)")
        }
        return Grant(email: account.email, project: account.project, scopes: scopes)
    }

    /// `a=b&c=d`, percent-decoded, `+` as a space.
    static func form(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let pieces = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = decoded(pieces[0]) else { continue }
            fields[key] = pieces.count > 1 ? decoded(pieces[1]) : ""
        }
        return fields
    }

    private static func decoded(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    private static func base64URL(_ text: Substring) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { Array($0) }
    }
}
