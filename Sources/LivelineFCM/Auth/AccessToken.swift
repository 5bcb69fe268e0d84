import LivelineCore

/// An OAuth 2.0 access token for FCM, with when it expires.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible {
    /// Renew this long before expiry, so a request never carries a token that expires on the way.
    public static let renewalMargin: Int64 = 300

    /// The bearer token, for `Authorization: Bearer …`.
    public let value: String
    /// UNIX seconds.
    public let expiresAt: Int64

    public init(value: String, expiresAt: Int64) {
        self.value = value
        self.expiresAt = expiresAt
    }

    /// Reads the token endpoint's answer (`{"access_token", "expires_in", "token_type"}`), received
    /// at `now` (UNIX seconds) with HTTP status `status`.
    public init(answer body: [UInt8], status: Int, receivedAt now: Int64) throws(FCMAuthError) {
        let root: StateValue
        do {
            root = try JSONParser.parse(body)
        } catch {
            throw FCMAuthError.malformedAnswer(status: status, "a body that is not JSON (\(error))")
        }
        guard case .object(let fields) = root else {
            throw FCMAuthError.malformedAnswer(status: status, "JSON that is not an object")
        }
        guard (200..<300).contains(status) else {
            guard case .string(let error)? = fields["error"] else {
                throw FCMAuthError.malformedAnswer(status: status, "no OAuth 'error'")
            }
            var description: String?
            if case .string(let text)? = fields["error_description"] { description = text }
            throw FCMAuthError.refused(status: status, error: error, description: description)
        }
        guard case .string(let token)? = fields["access_token"], !token.isEmpty else {
            throw FCMAuthError.malformedAnswer(status: status, "no 'access_token'")
        }
        if case .string(let type)? = fields["token_type"], type.lowercased() != "bearer" {
            throw FCMAuthError.malformedAnswer(status: status, "a token of type '\(type)', not Bearer")
        }
        let lifetime: Int64
        switch fields["expires_in"] {
        case .int(let seconds)?: lifetime = Int64(seconds)
        case .double(let seconds)? where seconds.isFinite: lifetime = Int64(seconds)
        default: throw FCMAuthError.malformedAnswer(status: status, "no 'expires_in'")
        }
        self.init(value: token, expiresAt: now + lifetime)
    }

    /// Whether to get a new one before a request sent at `now` (UNIX seconds).
    public func needsRenewal(at now: Int64) -> Bool { now >= expiresAt - Self.renewalMargin }

    /// Shows when it expires, never the token.
    public var description: String { "AccessToken(expires \(expiresAt))" }
}

/// The request that exchanges an ``OAuthAssertion`` for an ``AccessToken``: a form POST to the
/// service account's `token_uri` (RFC 7523 §2.1).
public struct AccessTokenRequest: Sendable, Hashable {
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    public static let contentType = "application/x-www-form-urlencoded"

    /// Where it goes: the account's `token_uri`.
    public let url: String
    public let body: [UInt8]

    public init(account: ServiceAccount, assertion: OAuthAssertion) {
        url = account.tokenURI
        body = Array(
            ("grant_type=" + Self.formEncoded(Self.grantType) + "&assertion=" + Self.formEncoded(assertion.value)).utf8)
    }

    /// `application/x-www-form-urlencoded`: letters, digits and `-._~` as they are, the rest as %XX.
    static func formEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }
}
