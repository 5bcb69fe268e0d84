/// A source's verification scheme as configuration describes it; ``makeVerifier()`` builds
/// the verifier once, at start-up, so configuration mistakes surface before any webhook.
///
/// Printing one names the scheme and counts its secrets; it never shows a secret.
public enum VerificationScheme: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    case standardWebhooks(secrets: [String], publicKeys: [String] = [], tolerance: TimestampTolerance = .standard)
    case stripe(secrets: [String], tolerance: TimestampTolerance = .standard)
    case github(secrets: [String])
    case shopify(secrets: [String])
    case square(signatureKeys: [String], notificationURL: String)
    case hmac(GenericHMACConfiguration)
    case bearer(tokens: [String], header: String = "Authorization")
    case headerValue(header: String = "Authorization", values: [String])
    case basic(credentials: [BasicCredential])
    /// Only on a loopback listener (``NoVerification/isAllowed(onListenHost:)``).
    case none

    public var description: String {
        switch self {
        case .standardWebhooks(let secrets, let keys, let tolerance):
            "standard-webhooks (\(secrets.count) secret(s), \(keys.count) public key(s), tolerance \(tolerance.seconds) s)"
        case .stripe(let secrets, let tolerance):
            "stripe (\(secrets.count) secret(s), tolerance \(tolerance.seconds) s)"
        case .github(let secrets): "github (\(secrets.count) secret(s))"
        case .shopify(let secrets): "shopify (\(secrets.count) secret(s))"
        case .square(let keys, let url): "square (\(keys.count) key(s), \(url))"
        case .hmac(let configuration): configuration.description
        case .bearer(let tokens, let header): "bearer (\(header), \(tokens.count) token(s))"
        case .headerValue(let header, let values): "header value (\(header), \(values.count) value(s))"
        case .basic(let credentials): "basic (\(credentials.map(\.user).joined(separator: ", ")))"
        case .none: "none"
        }
    }

    public var debugDescription: String { description }

    /// Whether the scheme signs the URL the request was posted to, so ingest must rebuild it
    /// (Square signs the configured URL instead).
    public var signsRequestURL: Bool {
        if case .hmac(let configuration) = self { configuration.signed.contains(.url) } else { false }
    }

    /// The `WWW-Authenticate` challenge a 401 carries for the shared-secret schemes, which
    /// clients answer with credentials; nil for signature schemes (a signature is not a
    /// credential a client can be asked for). `realm` names the source.
    public func challenge(realm: String) -> String? {
        switch self {
        case .bearer: "Bearer realm=\"\(realm)\""
        case .basic: "Basic realm=\"\(realm)\", charset=\"UTF-8\""
        // No registered scheme sends a bare value; the challenge names the header to send.
        case .headerValue(let header, _): "Header realm=\"\(realm)\", header=\"\(header)\""
        default: nil
        }
    }

    /// Whether an event id read from a header can be trusted as the idempotency key. GitHub and
    /// Shopify sign only the body, so their delivery-id headers are not covered: anyone
    /// replaying a captured webhook could change the id and have it stored again, or reuse an
    /// id to have a different event dropped as a duplicate. Their sources deduplicate on the
    /// body's SHA-256 instead.
    public var signsEventIDHeaders: Bool {
        switch self {
        case .github, .shopify: false
        default: true
        }
    }

    /// The verifier this description stands for.
    public func makeVerifier() throws(WebhookConfigurationError) -> any WebhookVerifier {
        switch self {
        case .standardWebhooks(let secrets, let publicKeys, let tolerance):
            try StandardWebhooks(secrets: secrets, publicKeys: publicKeys, tolerance: tolerance)
        case .stripe(let secrets, let tolerance): try StripeSignature(secrets: secrets, tolerance: tolerance)
        case .github(let secrets): try GitHubSignature(secrets: secrets)
        case .shopify(let secrets): try ShopifySignature(secrets: secrets)
        case .square(let keys, let url): try SquareSignature(signatureKeys: keys, notificationURL: url)
        case .hmac(let configuration): try GenericHMAC(configuration)
        case .bearer(let tokens, let header): try SharedSecretAuth.bearer(tokens: tokens, header: header)
        case .headerValue(let header, let values): try SharedSecretAuth.headerValue(header, values: values)
        case .basic(let credentials):
            try SharedSecretAuth.basic(credentials: credentials.map { ($0.user, $0.password) })
        case .none: NoVerification()
        }
    }
}

/// The settings of a ``GenericHMAC`` scheme, as configuration gives them.
public struct GenericHMACConfiguration: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var header: String
    public var algorithm: HMACAlgorithm
    public var encoding: SignatureEncoding
    public var prefix: String
    public var separator: Character?
    public var signed: [GenericHMAC.Part]
    public var timestamp: GenericHMAC.Timestamp?
    public var secrets: [String]

    public init(
        header: String, algorithm: HMACAlgorithm = .sha256, encoding: SignatureEncoding = .hex,
        prefix: String = "", separator: Character? = nil, signed: [GenericHMAC.Part] = [.body],
        timestamp: GenericHMAC.Timestamp? = nil, secrets: [String]
    ) {
        self.header = header
        self.algorithm = algorithm
        self.encoding = encoding
        self.prefix = prefix
        self.separator = separator
        self.signed = signed
        self.timestamp = timestamp
        self.secrets = secrets
    }

    /// The shape of the scheme and how many secrets; never a secret.
    public var description: String {
        "hmac (\(header), \(algorithm.rawValue), \(encoding.rawValue), \(secrets.count) secret(s))"
    }

    public var debugDescription: String { description }
}

/// One user name and password accepted by HTTP Basic authentication.
public struct BasicCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The user name only.
    public var description: String { "\(user):<password>" }

    public var debugDescription: String { description }
}
