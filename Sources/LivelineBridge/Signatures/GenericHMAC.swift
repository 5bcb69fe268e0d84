import HTTPTypes

/// An HMAC signature in one header, described by configuration, for senders without a scheme
/// of their own here.
///
/// It says which header carries the signature, the hash (SHA-256, SHA-1, SHA-512), how the
/// bytes are written (hex or base64), an optional prefix before them (`sha256=`), and what is
/// signed: a list of ``Part``s fed in order, e.g. a timestamp header, a `.`, then the body.
/// With a timestamp header the timestamp must lie within the tolerance of now; that header must
/// be one of the signed parts, or a replayer could simply rewrite it.
///
/// Uber Direct's `x-uber-signature` (hex HMAC-SHA256 of the body) is
/// `GenericHMAC(header: "x-uber-signature", secrets: [secret])`. GitHub, Shopify and Square are
/// configurations of this type too, under their own names.
///
/// Several field lines of the signature header, or (with `separator`) several signatures in
/// one value, are each tried; one match is enough.
public struct GenericHMAC: WebhookVerifier {
    /// One piece of the signed content.
    public enum Part: Sendable, Hashable {
        /// The raw request body.
        case body
        /// The value of a request header (missing: 400 naming it).
        case header(String)
        /// Fixed text, such as a `.` separator or a configured notification URL.
        case literal(String)
        /// The URL the request was sent to, as the caller passes it.
        case url
    }

    /// A signed timestamp header and its window.
    public struct Timestamp: Sendable, Hashable {
        /// The header carrying the UNIX-seconds timestamp; it must also be a signed part.
        public var header: String
        /// How far from now the timestamp may be.
        public var tolerance: TimestampTolerance

        /// A timestamp read from `header`, within `tolerance`.
        public init(header: String, tolerance: TimestampTolerance = .standard) {
            self.header = header
            self.tolerance = tolerance
        }
    }

    private enum ResolvedPart: Sendable {
        case body
        case header(HTTPField.Name)
        case literal([UInt8])
        case url
    }

    private let header: HTTPField.Name
    private let encoding: SignatureEncoding
    private let prefix: String
    private let separator: Character?
    private let parts: [ResolvedPart]
    private let timestamp: (header: HTTPField.Name, tolerance: TimestampTolerance)?
    private let keyring: HMACKeyring

    /// - Parameters:
    ///   - header: the header that carries the signature.
    ///   - algorithm: the hash under the HMAC.
    ///   - encoding: how the signature bytes are written.
    ///   - prefix: text before the signature bytes (matched ignoring ASCII case), e.g. `sha256=`.
    ///   - separator: splits one header value into several signatures, if the sender sends a list.
    ///   - signed: what is signed, in order; the body alone by default.
    ///   - timestamp: a signed timestamp header to check against the tolerance, if any.
    ///   - secrets: the secrets, as UTF-8 text, newest first.
    public init(
        header: String,
        algorithm: HMACAlgorithm = .sha256,
        encoding: SignatureEncoding = .hex,
        prefix: String = "",
        separator: Character? = nil,
        signed: [Part] = [.body],
        timestamp: Timestamp? = nil,
        secrets: [String]
    ) throws(WebhookConfigurationError) {
        try self.init(
            GenericHMACConfiguration(
                header: header, algorithm: algorithm, encoding: encoding, prefix: prefix, separator: separator,
                signed: signed, timestamp: timestamp, secrets: secrets))
    }

    /// A verifier for the scheme `configuration` describes.
    public init(_ configuration: GenericHMACConfiguration) throws(WebhookConfigurationError) {
        let setting = "hmac \(configuration.header)"
        guard !configuration.signed.isEmpty else { throw WebhookConfigurationError("\(setting): nothing is signed") }
        header = try .configured(configuration.header, setting: setting)
        encoding = configuration.encoding
        prefix = configuration.prefix
        separator = configuration.separator
        var parts: [ResolvedPart] = []
        for part in configuration.signed {
            switch part {
            case .body: parts.append(.body)
            case .header(let name): parts.append(.header(try .configured(name, setting: setting)))
            case .literal(let text): parts.append(.literal(Array(text.utf8)))
            case .url: parts.append(.url)
            }
        }
        self.parts = parts
        if let timestamp = configuration.timestamp {
            let name = try HTTPField.Name.configured(timestamp.header, setting: setting)
            // An unsigned timestamp can be rewritten by whoever replays the request: no protection.
            guard parts.contains(where: { if case .header(name) = $0 { true } else { false } }) else {
                throw WebhookConfigurationError(
                    "\(setting): the timestamp header \(timestamp.header) must be among the signed parts")
            }
            self.timestamp = (name, timestamp.tolerance)
        } else {
            self.timestamp = nil
        }
        keyring = try HMACKeyring(
            algorithm: configuration.algorithm, utf8Secrets: configuration.secrets, setting: setting)
    }

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        var signedTimestamp: Int64?
        if let timestamp {
            let text = try headers.required(timestamp.header)
            signedTimestamp = try timestamp.tolerance.check(text[...], header: timestamp.header.rawName, now: now)
        }
        // Header values the content signs, read (and checked present) before any MAC is computed.
        var signedHeaders: [String] = []
        for part in parts {
            if case .header(let name) = part { signedHeaders.append(try headers.required(name)) }
        }

        var present = false
        var wellFormed = false
        for field in headers where field.name == header {
            present = true
            forEachSignature(in: field.value) { if encoding.isValid($0.utf8) { wellFormed = true } }
        }
        guard present else { throw .missingHeader(header.rawName) }
        guard wellFormed else {
            throw .malformedHeader(header.rawName, expected: "\(prefix)<\(encoding.rawValue) signature>")
        }

        let index = keyring.firstMatchingKey(
            content: { update in
                var nextHeader = 0
                for part in parts {
                    switch part {
                    case .body: SignedBytes.feed(body, to: update)
                    case .header:
                        SignedBytes.feed(signedHeaders[nextHeader], to: update)
                        nextHeader += 1
                    case .literal(let bytes): bytes.withUnsafeBytes(update)
                    case .url: SignedBytes.feed(url, to: update)
                    }
                }
            },
            accepts: { mac in
                var matched = false
                for field in headers where field.name == header {
                    forEachSignature(in: field.value) { signature in
                        if encoding.matches(signature.utf8, mac: mac) { matched = true }
                    }
                }
                return matched
            })
        guard let index else { throw .signatureMismatch }
        return VerifiedWebhook(timestamp: signedTimestamp, keyIndex: index)
    }

    /// Calls `body` with the encoded bytes of each signature in one field value that carries the
    /// prefix; values without it are skipped.
    private func forEachSignature(in value: String, _ body: (Substring) -> Void) {
        func visit(_ item: Substring) {
            let item = item.trimmingSpaces
            guard item.utf8.hasCaseInsensitivePrefix(prefix) else { return }
            let signature = item.dropFirst(prefix.count)
            if !signature.isEmpty { body(signature) }
        }
        if let separator { value[...].forEachItem(separatedBy: separator, visit) } else { visit(value[...]) }
    }
}
