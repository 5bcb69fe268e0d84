/// Why a webhook cannot be signed with a source's scheme: the configuration holds nothing to
/// sign with (only public keys), or a header the scheme signs was not given.
///
/// Messages name the setting or header and never repeat a secret.
public struct WebhookSigningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the setting or header.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
