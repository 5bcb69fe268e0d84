import HTTPTypes

/// Square: `x-square-hmacsha256-signature: <base64>`, the HMAC-SHA256 of the notification URL
/// followed by the body, keyed with the subscription's signature key.
///
/// The URL is the one configured in Square's dashboard for the subscription, not the one this
/// server sees (a proxy or load balancer in between changes scheme, host or port), so it is
/// part of the configuration and the request's URL is ignored. Square signs no timestamp.
public struct SquareSignature: WebhookVerifier {
    private let hmac: GenericHMAC

    /// - Parameters:
    ///   - signatureKeys: subscription signature keys, newest first.
    ///   - notificationURL: the subscription's notification URL, exactly as registered.
    public init(signatureKeys: [String], notificationURL: String) throws(WebhookConfigurationError) {
        guard !notificationURL.isEmpty else {
            throw WebhookConfigurationError("square: the notification URL is needed")
        }
        hmac = try GenericHMAC(
            header: "x-square-hmacsha256-signature", encoding: .base64,
            signed: [.literal(notificationURL), .body], secrets: signatureKeys)
    }

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        try hmac.verify(body: body, headers: headers, url: url, now: now)
    }
}
