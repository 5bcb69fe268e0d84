import LivelineAPNs
import NIOCore

/// The access token every request to FCM carries: got by exchanging the service account's
/// signed assertion at its `token_uri`, kept until five minutes before it expires, and renewed
/// by one exchange however many requests wait for it.
actor AccessTokenSource {
    private let account: ServiceAccount
    private let transport: APNsClient
    private let path: String
    private let now: @Sendable () -> Int64
    private var token: AccessToken?
    private var exchange: Task<AccessToken, any Error>?
    /// How many exchanges were made (renewals included).
    private(set) var exchanges = 0

    init(account: ServiceAccount, transport: APNsClient, path: String, now: @escaping @Sendable () -> Int64) {
        self.account = account
        self.transport = transport
        self.path = path
        self.now = now
    }

    /// A token that will not expire in the next five minutes. Throws ``FCMAuthError`` when the
    /// endpoint refused, or the transport's error when it could not be reached.
    func current() async throws -> AccessToken {
        if let token, !token.needsRenewal(at: now()) { return token }
        if let exchange { return try await exchange.value }
        let task = Task { try await self.fetch() }
        exchange = task
        defer { exchange = nil }
        let fresh = try await task.value
        token = fresh
        return fresh
    }

    /// Forgets `value` after FCM refused it (401), so the next request gets a new one.
    func discard(_ value: String) {
        if token?.value == value { token = nil }
    }

    private func fetch() async throws -> AccessToken {
        exchanges += 1
        let assertion = try OAuthAssertion(account: account, issuedAt: now())
        let form = AccessTokenRequest(account: account, assertion: assertion)
        let response = try await transport.send(
            APNsRequest(
                method: .post, path: path, headers: [("content-type", AccessTokenRequest.contentType)],
                body: ByteBuffer(bytes: form.body)))
        return try AccessToken(answer: response.body, status: response.status, receivedAt: now())
    }
}
