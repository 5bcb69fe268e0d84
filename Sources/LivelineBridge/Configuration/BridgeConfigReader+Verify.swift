import Liveline
import Yams

extension BridgeConfigReader {
    /// A source's scheme and the verifier built from it.
    struct Verification {
        var scheme: VerificationScheme
        var verifier: any WebhookVerifier
    }

    static let schemes = [
        "standard-webhooks", "stripe", "github", "shopify", "square", "hmac", "bearer", "basic", "header-value", "none",
    ]

    /// The keys `verify` may hold beside `scheme`, per scheme.
    static func options(for scheme: String) -> [String] {
        switch scheme {
        case "standard-webhooks": ["public-keys"]
        case "square": ["notification-url"]
        case "hmac": ["header", "hash", "encoding", "prefix", "separator", "signed", "timestamp-header", "public-url"]
        case "bearer", "header-value": ["header"]
        default: []
        }
    }

    /// `verify: NAME` or `verify: { scheme: NAME, options… }`, with the source's secrets.
    mutating func verification(
        _ node: Node, source: String, secrets: [String]?, secretsNode: Node?, tolerance: TimestampTolerance,
        sourceNode: Node
    ) -> Verification? {
        var schemeNode = node
        if case .mapping(let mapping) = node {
            guard let value = mapping.first(where: { $0.key.scalar?.string == "scheme" })?.value else {
                error(node, "verify is missing 'scheme' (one of: \(Self.schemes.joined(separator: ", ")))")
                return nil
            }
            schemeNode = value
        }
        guard let name = base.string(schemeNode, "the verification scheme") else { return nil }
        guard Self.schemes.contains(name) else {
            error(schemeNode, "unknown verification scheme '\(name)'\(Self.hint(name, Self.schemes))")
            return nil
        }
        var options = Fields()
        if case .mapping = node {
            guard
                let fields = base.fields(
                    of: node, in: "verify (\(name))", allowed: ["scheme"] + Self.options(for: name))
            else { return nil }
            options = fields
        }

        if name == "none" {
            if let secretsNode { error(secretsNode, "verify: none takes no secrets") }
            guard NoVerification.isAllowed(onListenHost: listen.host) else {
                error(
                    schemeNode,
                    "verify: none accepts any request, so it is allowed only when listen is a loopback address (127.0.0.1, ::1, localhost), not \(listen.host)"
                )
                return nil
            }
            return Verification(scheme: .none, verifier: NoVerification())
        }
        guard let secrets else {
            error(
                sourceNode,
                "source '\(source)' is missing 'secrets' (the shared secrets of \(name), newest first; env:NAME reads one from the environment)"
            )
            return nil
        }
        guard !secrets.isEmpty else { return nil } // each missing one is reported already

        guard
            let scheme = self.scheme(
                name, source: source, options: options, secrets: secrets, tolerance: tolerance, node: node)
        else {
            return nil
        }
        if sourcesWithoutSecrets.contains(source) { return Verification(scheme: scheme, verifier: SecretsNotLoaded()) }
        do throws(WebhookConfigurationError) {
            return Verification(scheme: scheme, verifier: try scheme.makeVerifier())
        } catch {
            self.error(node, "verify (\(name)): \(error.message)")
            return nil
        }
    }

    private mutating func scheme(
        _ name: String, source: String, options: Fields, secrets: [String], tolerance: TimestampTolerance, node: Node
    ) -> VerificationScheme? {
        switch name {
        case "standard-webhooks":
            let keys = options["public-keys"].map { self.secrets($0, source: source) } ?? []
            return .standardWebhooks(secrets: secrets, publicKeys: keys, tolerance: tolerance)
        case "stripe": return .stripe(secrets: secrets, tolerance: tolerance)
        case "github": return .github(secrets: secrets)
        case "shopify": return .shopify(secrets: secrets)
        case "square":
            guard let url = options["notification-url"].flatMap({ base.string($0, "notification-url") }) else {
                if !options.has("notification-url") {
                    error(
                        node, "verify (square) is missing 'notification-url', the URL Square posts to, which it signs")
                }
                return nil
            }
            return .square(signatureKeys: secrets, notificationURL: url)
        case "bearer":
            let header = options["header"].flatMap { base.string($0, "header") } ?? "Authorization"
            return .bearer(tokens: secrets, header: header)
        case "header-value":
            let header = options["header"].flatMap { base.string($0, "header") } ?? "Authorization"
            return .headerValue(header: header, values: secrets)
        case "basic":
            var credentials: [BasicCredential] = []
            for secret in secrets {
                guard let colon = secret.firstIndex(of: ":") else {
                    error(node, "verify (basic): each secret is user:password")
                    return nil
                }
                credentials.append(
                    BasicCredential(
                        user: String(secret[..<colon]), password: String(secret[secret.index(after: colon)...])))
            }
            return .basic(credentials: credentials)
        case "hmac":
            return hmac(options, secrets: secrets, tolerance: tolerance, node: node).map { .hmac($0) }
        default:
            return nil
        }
    }

    private mutating func hmac(
        _ options: Fields, secrets: [String], tolerance: TimestampTolerance, node: Node
    ) -> GenericHMACConfiguration? {
        guard let header = options["header"].flatMap({ base.string($0, "header") }) else {
            if !options.has("header") {
                error(node, "verify (hmac) is missing 'header', the header that carries the signature")
            }
            return nil
        }
        var configuration = GenericHMACConfiguration(header: header, secrets: secrets)
        if let node = options["hash"],
            let value = base.choice(node, "hash", HMACAlgorithm.allCases.map { ($0.rawValue, $0) })
        {
            configuration.algorithm = value
        }
        if let node = options["encoding"],
            let value = base.choice(node, "encoding", SignatureEncoding.allCases.map { ($0.rawValue, $0) })
        {
            configuration.encoding = value
        }
        if let node = options["prefix"], let value = base.string(node, "prefix") { configuration.prefix = value }
        if let node = options["separator"], let value = base.string(node, "separator") {
            if value.count == 1, let character = value.first {
                configuration.separator = character
            } else {
                error(node, "expected separator as one character, like ','")
            }
        }
        if let node = options["signed"] {
            guard case .sequence(let items) = node, !items.isEmpty else {
                error(node, "expected signed as a list of parts: body, url, header:NAME, literal:TEXT")
                return nil
            }
            var parts: [GenericHMAC.Part] = []
            for item in items {
                guard let text = base.string(item, "a signed part") else { continue }
                if text == "body" {
                    parts.append(.body)
                } else if text == "url" {
                    parts.append(.url)
                } else if text.hasPrefix("header:"), text.count > 7 {
                    parts.append(.header(String(text.dropFirst(7))))
                } else if text.hasPrefix("literal:") {
                    parts.append(.literal(String(text.dropFirst(8))))
                } else {
                    error(item, "expected a signed part as body, url, header:NAME or literal:TEXT, found '\(text)'")
                }
            }
            configuration.signed = parts
        }
        // The URL the sender posts to, as it signs it, when the bridge cannot rebuild it from
        // the request (a proxy that sets neither Forwarded nor X-Forwarded-Host), as Square's
        // notification-url.
        if let node = options["public-url"], let url = base.string(node, "public-url") {
            if !configuration.signed.contains(.url) {
                error(
                    node,
                    "public-url stands for the url part of what is signed; add url to signed, or remove public-url")
            } else if !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
                error(node, "expected public-url as the http:// or https:// URL the sender posts to, found '\(url)'")
            } else {
                configuration.signed = configuration.signed.map { $0 == .url ? .literal(url) : $0 }
            }
        }
        if let node = options["timestamp-header"], let value = base.string(node, "timestamp-header") {
            configuration.timestamp = GenericHMAC.Timestamp(header: value, tolerance: tolerance)
        }
        return configuration
    }
}
