import HTTPTypes

/// Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=<hex>]`.
///
/// `v1` is the hex HMAC-SHA256 of `{t}.{body}` keyed with the endpoint's signing secret (the
/// whole `whsec_…` text, as UTF-8). While a secret is rolled Stripe sends one `v1` per active
/// secret; one match is enough. `v0` (test-mode legacy) and unknown schemes are ignored. `t`
/// must lie within the tolerance of now, either way.
public struct StripeSignature: WebhookVerifier {
    private let header: HTTPField.Name
    private let keyring: HMACKeyring
    /// How far the signature's `t=` may be from now.
    public let tolerance: TimestampTolerance

    /// - Parameters:
    ///   - secrets: endpoint signing secrets (`whsec_…`), newest first.
    ///   - tolerance: how far `t` may be from now.
    public init(secrets: [String], tolerance: TimestampTolerance = .standard) throws(WebhookConfigurationError) {
        self.header = try .configured("Stripe-Signature", setting: "stripe")
        self.keyring = try HMACKeyring(algorithm: .sha256, utf8Secrets: secrets, setting: "stripe")
        self.tolerance = tolerance
    }

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        let value = try headers.required(header)
        var timestampText: Substring?
        var signatureCount = 0
        value[...].forEachItem(separatedBy: ",") { item in
            let item = item.trimmingSpaces
            if timestampText == nil, item.hasPrefix("t=") { timestampText = item.dropFirst(2) }
            if item.hasPrefix("v1="), SignatureEncoding.hex.isValid(item.utf8.dropFirst(3)) { signatureCount += 1 }
        }
        guard let timestampText else { throw .malformedHeader(header.rawName, expected: "t=<timestamp>") }
        guard signatureCount > 0 else { throw .malformedHeader(header.rawName, expected: "v1=<hex signature>") }
        let timestamp = try tolerance.check(timestampText, header: header.rawName, now: now)

        let index = keyring.firstMatchingKey(
            content: { update in
                SignedBytes.feed(timestampText, to: update)
                SignedBytes.dot.withUnsafeBytes(update)
                SignedBytes.feed(body, to: update)
            },
            accepts: { mac in
                var matched = false
                value[...].forEachItem(separatedBy: ",") { item in
                    let item = item.trimmingSpaces
                    if item.hasPrefix("v1="), SignatureEncoding.hex.matches(item.utf8.dropFirst(3), mac: mac) {
                        matched = true
                    }
                }
                return matched
            })
        guard let index else { throw .signatureMismatch }
        return VerifiedWebhook(timestamp: timestamp, keyIndex: index)
    }
}
