import HTTPTypes

/// Shopify: `X-Shopify-Hmac-Sha256: <base64>`, the HMAC-SHA256 of the body keyed with the
/// app's client secret. Shopify signs no timestamp; replays are caught by deduplicating on
/// `X-Shopify-Event-Id`, which the source configuration names as the event id.
public struct ShopifySignature: WebhookVerifier {
    private let hmac: GenericHMAC

    /// - Parameter secrets: client secrets, newest first.
    public init(secrets: [String]) throws(WebhookConfigurationError) {
        hmac = try GenericHMAC(header: "X-Shopify-Hmac-Sha256", encoding: .base64, secrets: secrets)
    }

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        try hmac.verify(body: body, headers: headers, url: url, now: now)
    }
}
