/// Why a webhook could not be sent or no answer came: the URL, the connection, TLS, or time.
public struct WebhookSendError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
