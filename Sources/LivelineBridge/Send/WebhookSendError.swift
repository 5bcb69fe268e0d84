/// Why a webhook could not be sent or no answer came: the URL, the connection, TLS, or time.
public struct WebhookSendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, naming the URL and the step that failed.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
