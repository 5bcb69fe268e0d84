/// A source's verification scheme as configuration describes it; ``makeVerifier()`` builds
/// the verifier once, at start-up, so configuration mistakes surface before any webhook.
///
/// Printing one names the scheme and counts its secrets; it never shows a secret.
public enum VerificationScheme: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): HMAC-SHA256 with
    /// `whsec_` secrets, or Ed25519 with `whpk_` public keys; the timestamp within `tolerance`.
    case standardWebhooks(secrets: [String], publicKeys: [String] = [], tolerance: TimestampTolerance = .standard)
    /// Stripe's `Stripe-Signature: t=…,v1=…`: HMAC-SHA256 of the timestamp and the body, the
    /// timestamp within `tolerance`.
    case stripe(secrets: [String], tolerance: TimestampTolerance = .standard)
    /// GitHub's `X-Hub-Signature-256: sha256=<hex>`: HMAC-SHA256 of the body.
    case github(secrets: [String])
    /// Shopify's `X-Shopify-Hmac-Sha256`: base64 HMAC-SHA256 of the body.
    case shopify(secrets: [String])
    /// Square's `x-square-hmacsha256-signature`: base64 HMAC-SHA256 of the notification URL and the
    /// body.
    case square(signatureKeys: [String], notificationURL: String)
    /// An HMAC in a header, described part by part (``GenericHMAC``).
    case hmac(GenericHMACConfiguration)
    /// A bearer token in `header` (`Authorization: Bearer …`), one of `tokens`.
    case bearer(tokens: [String], header: String = "Authorization")
    /// A shared secret as the whole value of `header`, one of `values`.
    case headerValue(header: String = "Authorization", values: [String])
    /// HTTP Basic authentication with one of `credentials`.
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
    /// The header carrying the signature.
    public var header: String
    /// The hash the HMAC uses.
    public var algorithm: HMACAlgorithm
    /// How the signature's bytes are written: hex or base64.
    public var encoding: SignatureEncoding
    /// Text before the signature in the header (`sha256=`); empty for none.
    public var prefix: String
    /// Splits one header value into several signatures, each tried; nil for one signature.
    public var separator: Character?
    /// What is signed, fed to the HMAC in this order.
    public var signed: [GenericHMAC.Part]
    /// The signed timestamp header and its tolerance; nil when the sender signs none.
    public var timestamp: GenericHMAC.Timestamp?
    /// The shared secrets; any one of them may have signed (rotation).
    public var secrets: [String]

    /// A configuration with the parts given; by default a hex HMAC-SHA256 of the body.
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
    /// The user name.
    public var user: String
    /// The password; never printed.
    public var password: String

    /// A credential of `user` and `password`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The user name only.
    public var description: String { "\(user):<password>" }

    public var debugDescription: String { description }
}
