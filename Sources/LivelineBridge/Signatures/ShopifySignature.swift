import HTTPTypes

/// Shopify: `X-Shopify-Hmac-Sha256: <base64>`, the HMAC-SHA256 of the body keyed with the
/// app's client secret. Shopify signs no timestamp and not its delivery-id header, so replays
/// are caught by deduplicating on the body's SHA-256 (``VerificationScheme/signsEventIDHeaders``).
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
