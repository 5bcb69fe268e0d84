import NIOCore

/// A request handed to a connection, with what to call when it is answered or fails.
///
/// A plain callback rather than a promise: the connection calls it on its event loop, and no
/// callback has to be registered on a future from another thread (which would cost an
/// event-loop wake-up per push). What the client itself does with some answers (retire a
/// connection that answered `503 Shutdown`, renew an expired provider token and send again)
/// goes through ``complete(_:)`` and the client and connection the request carries, not through
/// a closure wrapped around `completion`: that would cost an allocation a push.
///
/// A class, immutable: it passes from the client's outbox to the connection's queue and table of
/// streams, and each hand-over of a struct this size retained every reference in it again (the
/// profile showed retains and releases as a fifth of the client's time); a reference costs one.
final class PendingRequest: Sendable {
    let request: APNsRequest
    /// The provider token sent as `authorization`, if any.
    let token: ProviderToken?
    /// Whether this is already the one resend after APNs said the token expired.
    let renewed: Bool
    /// The client that sent it and the connection it went on, told of the answer before
    /// `completion`; nil for a request written to a channel directly (the fuzzers).
    let client: APNsClient?
    let connection: APNsConnection?
    let completion: @Sendable (Result<APNsResponse, any Error>) -> Void
    /// When to give up waiting, in NIO uptime nanoseconds.
    let deadline: NIODeadline

    init(
        request: APNsRequest, token: ProviderToken?, renewed: Bool = false, client: APNsClient? = nil,
        connection: APNsConnection? = nil, completion: @escaping @Sendable (Result<APNsResponse, any Error>) -> Void,
        deadline: NIODeadline
    ) {
        self.request = request
        self.token = token
        self.renewed = renewed
        self.client = client
        self.connection = connection
        self.completion = completion
        self.deadline = deadline
    }

    /// The `authorization` value without `bearer `: the provider token.
    var authorization: String? { token?.value }

    /// Reports APNs's answer or the failure: through the client that sent the request, which
    /// may act on it first, or straight to `completion`.
    func complete(_ result: Result<APNsResponse, any Error>) {
        if let client, let connection {
            client.received(result, for: self, on: connection)
        } else {
            completion(result)
        }
    }
}
