import Crypto
import HTTPTypes

/// Authentication by a shared secret sent as is, for senders that do not sign: a bearer token,
/// HTTP Basic credentials, or a fixed header value (DoorDash Drive sends whatever
/// `Authorization` value you configure for the webhook).
///
/// Nothing about the body is proven, only that the sender knows the secret, so use it over
/// TLS only. Comparison is of SHA-256 digests in constant time, so neither the position of a
/// first difference nor the secret's length shows in the timing; every configured secret is
/// compared, with no early exit.
public struct SharedSecretAuth: WebhookVerifier, CustomStringConvertible, CustomDebugStringConvertible {
    private enum Form: Sendable {
        /// The whole header value is the secret.
        case value
        /// `<scheme> <credentials>`, the scheme matched ignoring case.
        case scheme(String)
        /// `Basic <base64 of user:password>`; the decoded pair is the secret.
        case basic
    }

    private let header: HTTPField.Name
    private let form: Form
    private let digests: [[UInt8]]

    private init(header: String, form: Form, secrets: [[UInt8]], setting: String) throws(WebhookConfigurationError) {
        guard !secrets.isEmpty else { throw WebhookConfigurationError("\(setting): at least one secret is needed") }
        if let empty = secrets.firstIndex(where: \.isEmpty) {
            throw WebhookConfigurationError("\(setting): secret \(empty + 1) is empty")
        }
        self.header = try .configured(header, setting: setting)
        self.form = form
        self.digests = secrets.map { Array(SHA256.hash(data: $0)) }
    }

    /// `Authorization: Bearer <token>` (or the same in another header), any of `tokens`.
    public static func bearer(
        tokens: [String], header: String = "Authorization"
    ) throws(WebhookConfigurationError) -> Self {
        try Self(header: header, form: .scheme("Bearer"), secrets: tokens.map { Array($0.utf8) }, setting: "bearer")
    }

    /// A header whose whole value must equal one of `values` (DoorDash Drive's `Authorization`).
    public static func headerValue(
        _ header: String = "Authorization", values: [String]
    ) throws(WebhookConfigurationError) -> Self {
        try Self(header: header, form: .value, secrets: values.map { Array($0.utf8) }, setting: "header \(header)")
    }

    /// HTTP Basic: `Authorization: Basic <base64 of user:password>`, any of `credentials`.
    public static func basic(credentials: [(user: String, password: String)]) throws(WebhookConfigurationError) -> Self
    {
        if credentials.contains(where: { $0.user.contains(":") }) {
            throw WebhookConfigurationError("basic: a user name cannot contain ':'")
        }
        return try Self(
            header: "Authorization", form: .basic,
            secrets: credentials.map { Array("\($0.user):\($0.password)".utf8) }, setting: "basic")
    }

    /// The header and how many secrets; never a secret or its digest.
    public var description: String { "SharedSecretAuth(\(header.rawName), \(digests.count) secret(s))" }

    public var debugDescription: String { description }

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        guard let value = headers[header], !value.isEmpty else { throw .missingCredentials(header.rawName) }
        let presented: SHA256Digest
        switch form {
        case .value:
            presented = Self.digest(value.utf8)
        case .scheme(let scheme):
            presented = Self.digest(try credentials(in: value, scheme: scheme).utf8)
        case .basic:
            let encoded = try credentials(in: value, scheme: "Basic")
            guard let decoded = SignatureEncoding.base64.decode(encoded.utf8) else {
                throw .malformedHeader(header.rawName, expected: "Basic <base64 of user:password>")
            }
            presented = Self.digest(decoded)
        }
        var match: Int?
        for (index, digest) in digests.enumerated() {
            let equal = digest.withUnsafeBytes { expected in
                presented.withUnsafeBytes { ConstantTime.equals(expected, $0) }
            }
            if equal, match == nil { match = index }
        }
        guard let match else { throw .wrongCredentials }
        return VerifiedWebhook(keyIndex: match)
    }

    /// The SHA-256 of `bytes`, without copying them when they are contiguous.
    private static func digest(_ bytes: some Collection<UInt8>) -> SHA256Digest {
        var hasher = SHA256()
        SignedBytes.feed(bytes) { hasher.update(bufferPointer: $0) }
        return hasher.finalize()
    }

    /// The credentials after `<scheme> `, or a 400 when the value uses another scheme.
    private func credentials(in value: String, scheme: String) throws(WebhookVerificationError) -> Substring {
        let text = value[...]
        guard text.utf8.hasCaseInsensitivePrefix(scheme + " ") else {
            throw .malformedHeader(header.rawName, expected: "\(scheme) <credentials>")
        }
        return text.dropFirst(scheme.count + 1).trimmingSpaces
    }
}
