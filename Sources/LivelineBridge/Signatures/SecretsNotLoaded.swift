import HTTPTypes

/// The verifier of a source whose secrets were not read: a configuration loaded for a command
/// that only reads the store (`liveline bridge record`, `bridge dead-letters`) needs no
/// webhook secret, so none has to be in its environment. It refuses every webhook, in case one
/// ever reaches it.
public struct SecretsNotLoaded: WebhookVerifier {
    /// A verifier that refuses every webhook.
    public init() {}

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        throw .wrongCredentials
    }
}
