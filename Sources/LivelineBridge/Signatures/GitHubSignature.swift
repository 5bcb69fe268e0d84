import HTTPTypes

/// GitHub: `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the body keyed with the
/// webhook's secret. (The SHA-1 `X-Hub-Signature` is legacy and not accepted.)
public struct GitHubSignature: WebhookVerifier {
    private let hmac: GenericHMAC

    /// - Parameter secrets: webhook secrets, newest first.
    public init(secrets: [String]) throws(WebhookConfigurationError) {
        hmac = try GenericHMAC(header: "X-Hub-Signature-256", encoding: .hex, prefix: "sha256=", secrets: secrets)
    }

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        try hmac.verify(body: body, headers: headers, url: url, now: now)
    }
}
