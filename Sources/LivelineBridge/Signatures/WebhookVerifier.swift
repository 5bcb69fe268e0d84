import HTTPTypes

/// Decides whether a webhook really comes from its sender, before anything else looks at it.
///
/// A verifier works on the raw body bytes exactly as they arrived (never on parsed and
/// re-serialized JSON: a signature covers bytes, and parsing is a later step), the request's
/// header fields, and the URL the request was sent to where a scheme signs it. The time is
/// given, never read: `now` is UNIX seconds from the caller's clock, so tolerance windows are
/// tested without waiting.
///
/// A verifier either returns what the scheme learnt (``VerifiedWebhook``) or throws a
/// ``WebhookVerificationError`` whose `status` and `reason` can go straight into the answer.
/// Verifiers are immutable values, safe to share between connections; they run once per
/// webhook, so they keep allocations to the few a scheme cannot avoid.
public protocol WebhookVerifier: Sendable {
    /// Checks one request.
    /// - Parameters:
    ///   - body: the raw request body.
    ///   - headers: the request's header fields.
    ///   - url: the URL the request was sent to, for schemes that sign it (the generic `.url`
    ///     part); others ignore it.
    ///   - now: the current time in UNIX seconds.
    func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook
}

extension WebhookVerifier {
    /// Checks a request whose scheme does not sign the URL.
    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        try verify(body: body, headers: headers, url: "", now: now)
    }
}

/// What a verifier learnt from an accepted webhook.
public struct VerifiedWebhook: Sendable, Hashable {
    /// The sender's id of the message, where the scheme signs one (Standard Webhooks'
    /// `webhook-id`); the inbox can deduplicate on it.
    public var id: String?
    /// The signed send time in UNIX seconds, where the scheme has one.
    public var timestamp: Int64?
    /// Which configured secret or key matched (0 is the first); nil when nothing was checked.
    /// A key other than the newest still in use tells an operator a rotation is not finished.
    public var keyIndex: Int?

    /// What a verifier learnt, each part nil when the scheme does not say it.
    public init(id: String? = nil, timestamp: Int64? = nil, keyIndex: Int? = nil) {
        self.id = id
        self.timestamp = timestamp
        self.keyIndex = keyIndex
    }
}
