import Crypto
import Foundation
import HTTPTypes

/// Signs a webhook body exactly as the real sender of a scheme does, for
/// `liveline bridge send SOURCE FILE.json` and for tests: the headers it makes pass the
/// matching verifier from ``VerificationScheme/makeVerifier()``.
///
/// The first (newest) secret of the scheme signs:
/// - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` of
///   `{id}.{timestamp}.{body}` keyed with the `whsec_` secret's bytes;
/// - Stripe: `Stripe-Signature: t=<timestamp>,v1=<hex>` of `{t}.{body}`;
/// - GitHub: `X-Hub-Signature-256: sha256=<hex>` of the body;
/// - Shopify: `X-Shopify-Hmac-Sha256: <base64>` of the body, and `X-Shopify-Webhook-Id` (the
///   id given, else a new UUID) unless the headers given carry one;
/// - Square: `x-square-hmacsha256-signature: <base64>` of the configured notification URL
///   followed by the body (so the URL sent to should be that notification URL);
/// - generic HMAC: its header, prefix, encoding and hash over its signed parts in order; a
///   signed header is taken from the headers given, except the timestamp header, which is set
///   to now when it is not given; the `url` part is the URL given;
/// - bearer, header value, basic: the credential in its header;
/// - none: nothing.
///
/// Every answer also carries `Content-Type: application/json` unless the headers given set one.
public struct WebhookSigner: Sendable {
    /// The scheme whose headers the signer writes.
    public let scheme: VerificationScheme

    /// A signer for `scheme`; schemes holding only public keys cannot sign.
    public init(scheme: VerificationScheme) {
        self.scheme = scheme
    }

    /// The headers to send with `body`.
    /// - Parameters:
    ///   - body: the exact bytes that will be sent.
    ///   - url: the URL the request goes to (a generic HMAC's `url` part signs it).
    ///   - now: the signing time in UNIX seconds.
    ///   - headers: headers to send as well; a generic HMAC's signed headers are read from here.
    ///   - id: the Standard Webhooks message id (a fresh random `msg_…` when nil), or Shopify's
    ///   webhook id (a fresh UUID when nil).
    public func sign(
        body: [UInt8], url: String, now: Int64, headers: HTTPFields = HTTPFields(), id: String? = nil
    ) throws(WebhookSigningError) -> HTTPFields {
        var fields = headers
        if fields[.contentType] == nil { fields[.contentType] = "application/json" }
        func set(_ name: String, _ value: String) throws(WebhookSigningError) {
            guard let field = HTTPField.Name(name) else {
                throw WebhookSigningError("\(name) is not a valid header name")
            }
            fields[field] = value
        }
        switch scheme {
        case .standardWebhooks(let secrets, _, _):
            guard let secret = secrets.first else {
                throw WebhookSigningError("standard-webhooks: signing needs a whsec_ secret; public keys only verify")
            }
            let key: [UInt8]
            do {
                key = try StandardWebhooks.decodeKey(secret, prefix: "whsec_", setting: "standard-webhooks secret 1")
            } catch {
                throw WebhookSigningError(error.message)
            }
            let messageID = id ?? Self.randomMessageID()
            let signature = Self.mac(.sha256, key: key, Array("\(messageID).\(now).".utf8) + body)
            try set("webhook-id", messageID)
            try set("webhook-timestamp", String(now))
            try set("webhook-signature", "v1," + SignatureEncoding.base64.encode(signature))
        case .stripe(let secrets, _):
            let secret = try Self.first(secrets, "stripe")
            let signature = Self.mac(.sha256, key: Array(secret.utf8), Array("\(now).".utf8) + body)
            try set("Stripe-Signature", "t=\(now),v1=" + SignatureEncoding.hex.encode(signature))
        case .github(let secrets):
            let secret = try Self.first(secrets, "github")
            try set(
                "X-Hub-Signature-256",
                "sha256=" + SignatureEncoding.hex.encode(Self.mac(.sha256, key: Array(secret.utf8), body)))
        case .shopify(let secrets):
            let secret = try Self.first(secrets, "shopify")
            try set(
                "X-Shopify-Hmac-Sha256",
                SignatureEncoding.base64.encode(Self.mac(.sha256, key: Array(secret.utf8), body)))
            // Shopify names every delivery (the same across its retries); rules dedupe on it.
            if let name = HTTPField.Name("X-Shopify-Webhook-Id"), fields[name] == nil {
                try set("X-Shopify-Webhook-Id", id ?? Self.randomWebhookUUID())
            }
        case .square(let keys, let notificationURL):
            let key = try Self.first(keys, "square")
            let signature = Self.mac(.sha256, key: Array(key.utf8), Array(notificationURL.utf8) + body)
            try set("x-square-hmacsha256-signature", SignatureEncoding.base64.encode(signature))
        case .hmac(let configuration):
            let secret = try Self.first(configuration.secrets, "hmac \(configuration.header)")
            if let timestamp = configuration.timestamp, let name = HTTPField.Name(timestamp.header), fields[name] == nil
            {
                fields[name] = String(now)
            }
            var content: [UInt8] = []
            for part in configuration.signed {
                switch part {
                case .body: content += body
                case .literal(let text): content += Array(text.utf8)
                case .url: content += Array(url.utf8)
                case .header(let name):
                    guard let field = HTTPField.Name(name), let value = fields[field] else {
                        throw WebhookSigningError(
                            "hmac \(configuration.header): the signed header \(name) was not given")
                    }
                    content += Array(value.utf8)
                }
            }
            let signature = Self.mac(configuration.algorithm, key: Array(secret.utf8), content)
            try set(configuration.header, configuration.prefix + configuration.encoding.encode(signature))
        case .bearer(let tokens, let header):
            try set(header, "Bearer " + (try Self.first(tokens, "bearer")))
        case .headerValue(let header, let values):
            try set(header, try Self.first(values, "header \(header)"))
        case .basic(let credentials):
            guard let credential = credentials.first else {
                throw WebhookSigningError("basic: no credentials are configured")
            }
            try set(
                "Authorization",
                "Basic " + SignatureEncoding.base64.encode(Array("\(credential.user):\(credential.password)".utf8)))
        case .none:
            break
        }
        return fields
    }

    private static func first(_ secrets: [String], _ setting: String) throws(WebhookSigningError) -> String {
        guard let secret = secrets.first, !secret.isEmpty else {
            throw WebhookSigningError("\(setting): no secret is configured")
        }
        return secret
    }

    private static func mac(_ algorithm: HMACAlgorithm, key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        let key = SymmetricKey(data: key)
        return switch algorithm {
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
    }

    /// A random UUID in lower case, as Shopify writes its webhook ids.
    static func randomWebhookUUID() -> String { UUID().uuidString.lowercased() }

    /// `msg_` and 24 random letters and digits, like the ids Standard Webhooks senders use.
    static func randomMessageID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return "msg_" + String((0..<24).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}
