import Foundation
import LivelineAPNs
import NIOCore

/// A client for FCM's HTTP v1 API: `POST /v1/projects/{project}/messages:send` over HTTP/2, many
/// messages in flight on each connection, with the service account's access token and FCM's
/// answers turned into what to do next.
///
/// ```swift
/// let client = try FCMClient(configuration: .init(account: try ServiceAccount(contentsOf: path)))
/// let outcome = await client.send(try FCMSendRequest(project: account.projectID, target: .token(token), message: m))
/// ```
///
/// It runs on the same HTTP/2 transport as the APNs client (``APNsClient``: the connection pool,
/// the framing on the shared connection core, GOAWAY and timeouts), sending FCM's requests in
/// its general form; the token endpoint is reached the same way, on a connection of its own
/// unless it is FCM's host. What it adds is FCM's: the access token (``AccessTokenSource``),
/// and FCM's answers read into the kinds every sender's ``AnswerPolicy`` decides on
/// (``PushServiceAnswer/init(_:)``, docs/answers.md): `UNAVAILABLE`, `INTERNAL` and
/// `QUOTA_EXCEEDED` wait and try again (as long as `Retry-After` says), a refused access token
/// is renewed once, and everything else is the caller's to act on: `UNREGISTERED` forgets the
/// token, a configuration error stops the sending.
public final class FCMClient: Sendable {
    public struct Configuration: Sendable {
        public var account: ServiceAccount
        /// FCM's address: `https://fcm.googleapis.com`, or a mock's.
        public var url: String
        /// PEM certificates to trust for FCM and the token endpoint (a mock's self-signed one).
        public var trustedCertificates: String?
        /// HTTP/2 connections to FCM.
        public var connections: Int
        public var requestTimeout: Duration
        /// What each answer means and how often to try: the one ``AnswerPolicy`` of every sender,
        /// with FCM's back-off (from a second, at most a minute, five attempts).
        public var policy: AnswerPolicy

        /// A configuration for `account`, sending to `url`.
        public init(
            account: ServiceAccount, url: String = "https://" + FCMSendRequest.host, trustedCertificates: String? = nil,
            connections: Int = 1, requestTimeout: Duration = .seconds(10), policy: AnswerPolicy = Self.defaultPolicy
        ) {
            self.account = account
            self.url = url
            self.trustedCertificates = trustedCertificates
            self.connections = connections
            self.requestTimeout = requestTimeout
            self.policy = policy
        }

        /// FCM asks senders to back off exponentially and to honour `Retry-After`: from a
        /// second, at most a minute between attempts, five attempts in all.
        public static let defaultPolicy = AnswerPolicy(
            retry: RetryPolicy(base: .seconds(1), cap: .seconds(60), maxAttempts: 5))
    }

    public let configuration: Configuration
    let transport: APNsClient
    /// The token endpoint's own transport, when it is not FCM's host.
    private let tokenTransport: APNsClient?
    let tokens: AccessTokenSource
    let now: @Sendable () -> Int64
    private let pause: @Sendable (Duration) async -> Void

    /// A client. `now` gives UNIX seconds (for the assertion and the token's age); `pause` waits
    /// between attempts (tests pass one that records the pause and returns at once).
    public init(
        configuration: Configuration, eventLoopGroup: (any EventLoopGroup)? = nil,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        pause: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }
    ) throws(FCMClientError) {
        self.configuration = configuration
        self.now = now
        self.pause = pause
        let fcm = try FCMAddress(
            url: configuration.url, trustedCertificates: configuration.trustedCertificates, setting: "the FCM URL")
        let tokenAddress = try FCMAddress(
            url: configuration.account.tokenURI, trustedCertificates: configuration.trustedCertificates,
            setting: "the service account's token_uri")
        do {
            transport = try APNsClient(
                configuration: .init(
                    endpoint: fcm.endpoint, connections: max(1, configuration.connections),
                    requestTimeout: configuration.requestTimeout),
                eventLoopGroup: eventLoopGroup)
            if tokenAddress.endpoint == fcm.endpoint {
                tokenTransport = nil
            } else {
                tokenTransport = try APNsClient(
                    configuration: .init(endpoint: tokenAddress.endpoint, requestTimeout: configuration.requestTimeout),
                    eventLoopGroup: transport.eventLoopGroup)
            }
        } catch {
            throw .transport("\(error)")
        }
        tokens = AccessTokenSource(
            account: configuration.account, transport: tokenTransport ?? transport, path: tokenAddress.path, now: now)
    }

    /// How many times the service account's assertion was exchanged for an access token.
    public var tokenExchanges: Int {
        get async { await tokens.exchanges }
    }

    /// Opens the connection to FCM (trying for `patience`, as ``APNsClient/connect(patience:)``)
    /// and gets the access token, so a destination that cannot be reached, or a service account
    /// it refuses, fails before the first message rather than message by message after every
    /// retry. Throws ``APNsUnreachable`` or what the token endpoint said (``FCMAuthError``).
    public func connect(patience: Duration = .seconds(15)) async throws {
        try await transport.connect(patience: patience)
        _ = try await tokens.current()
    }

    /// How many connections to FCM were opened so far.
    public var connectionsMade: Int { transport.connectionsMade }

    /// Sends one message, trying again as FCM's answers and the policy allow
    /// (``Configuration/policy``). Many calls may run at once; they share the connections and the
    /// access token. A cancelled task stops before its next attempt and gives up.
    public func send(_ request: FCMSendRequest) async -> FCMSendOutcome {
        let policy = configuration.policy
        let body = request.bodyBuffer
        var attempt = 0
        while true {
            attempt += 1
            let tried = await self.attempt(request, body: body)
            // Nearly every answer is a delivery, which needs no jitter: no random number drawn.
            let jitter = if case .accepted = tried.answer { 0.0 } else { Double.random(in: 0..<1) }
            let action = policy.action(for: tried.answer, attempt: attempt, random: jitter)
            switch action {
            case .retry(let after):
                await pause(.milliseconds(after))
            case .renewTokenAndRetry(let after):
                if let token = tried.accessToken { await tokens.discard(token) }
                await pause(.milliseconds(after))
            case .deliver, .forgetToken, .reject, .giveUp, .stop:
                return FCMSendOutcome(
                    action: action, answer: tried.answer, messageName: tried.messageName, error: tried.error,
                    failure: tried.failure, attempts: attempt)
            }
            // A caller that gave up on the message (its task cancelled) gets what the last
            // attempt said, rather than another attempt.
            if Task.isCancelled {
                return FCMSendOutcome(
                    action: .giveUp(reason: "cancelled"), answer: tried.answer, error: tried.error,
                    failure: tried.failure ?? "cancelled before the next attempt", attempts: attempt)
            }
        }
    }

    /// One attempt: what it answered, in the policy's kinds, and what the outcome reports of it.
    struct Attempt {
        var answer: PushServiceAnswer
        var accessToken: String?
        var messageName: String?
        var error: FCMError?
        var failure: String?
    }

    private func attempt(_ request: FCMSendRequest, body: ByteBuffer) async -> Attempt {
        let token: AccessToken
        switch await accessToken() {
        case .success(let current): token = current
        case .failure(let failed): return failed.attempt
        }
        do {
            let response = try await transport.send(
                APNsRequest(
                    method: .post, path: request.path, headers: request.headers(accessToken: token.value), body: body))
            return attempt(answered: .success(response), accessToken: token.value)
        } catch {
            return attempt(answered: .failure(error), accessToken: token.value)
        }
    }

    /// Why there is no access token to send with, as the attempt that could not be made.
    struct NoAccessToken: Error {
        var attempt: Attempt
    }

    /// The current access token, or the attempt its failure makes of every send.
    func accessToken() async -> Result<AccessToken, NoAccessToken> {
        do {
            return .success(try await tokens.current())
        } catch {
            let answer =
                (error as? FCMAuthError).map { PushServiceAnswer(accessTokenFailure: $0) }
                ?? PushServiceAnswer(failure: error)
            return .failure(
                NoAccessToken(attempt: Attempt(answer: answer, failure: "no access token for FCM: \(error)")))
        }
    }

    /// What FCM's answer (or the transport's failure) to a request sent with `accessToken` means.
    func attempt(answered result: Result<APNsResponse, any Error>, accessToken: String) -> Attempt {
        switch result {
        case .failure(let error):
            return Attempt(answer: PushServiceAnswer(failure: error), accessToken: accessToken, failure: "\(error)")
        case .success(let response) where response.isSuccess:
            return Attempt(
                answer: .accepted, accessToken: accessToken, messageName: FCMSendAnswer.messageName(in: response.body))
        case .success(let response):
            let error = FCMError(
                httpStatus: response.status, body: response.body, retryAfter: response.retryAfter, now: now())
            return Attempt(answer: PushServiceAnswer(error), accessToken: accessToken, error: error)
        }
    }

    /// Closes the connections.
    public func shutdown() async {
        await tokenTransport?.shutdown()
        await transport.shutdown()
    }
}
