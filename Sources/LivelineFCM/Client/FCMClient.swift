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
/// and retries by FCM's error codes (``FCMDisposition``, ``FCMRetryPolicy``): `UNAVAILABLE`,
/// `INTERNAL` and `QUOTA_EXCEEDED` wait and try again (at least as long as `Retry-After`
/// says), a refused access token is renewed once, and everything else is the caller's to act
/// on: `UNREGISTERED` forgets the token, a configuration error stops the sending.
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
        public var retry: FCMRetryPolicy

        public init(
            account: ServiceAccount, url: String = "https://" + FCMSendRequest.host, trustedCertificates: String? = nil,
            connections: Int = 1, requestTimeout: Duration = .seconds(10), retry: FCMRetryPolicy = FCMRetryPolicy()
        ) {
            self.account = account
            self.url = url
            self.trustedCertificates = trustedCertificates
            self.connections = connections
            self.requestTimeout = requestTimeout
            self.retry = retry
        }
    }

    public let configuration: Configuration
    private let transport: APNsClient
    /// The token endpoint's own transport, when it is not FCM's host.
    private let tokenTransport: APNsClient?
    private let tokens: AccessTokenSource
    private let now: @Sendable () -> Int64
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

    /// How many connections to FCM were opened so far.
    public var connectionsMade: Int { transport.connectionsMade }

    /// Sends one message, trying again as the retry policy and FCM's answers allow. Many calls
    /// may run at once; they share the connections and the access token.
    public func send(_ request: FCMSendRequest) async -> FCMSendOutcome {
        let policy = configuration.retry
        let body = ByteBuffer(bytes: request.body)
        var attempt = 0
        var renewed = false
        while true {
            attempt += 1
            let token: AccessToken
            do {
                token = try await tokens.current()
            } catch let error as FCMAuthError {
                if error.isTransient, attempt < policy.maxAttempts {
                    await pause(policy.pause(after: attempt, retryAfter: nil, unit: .random(in: 0...1)))
                    continue
                }
                let disposition: FCMDisposition =
                    error.isTransient
                    ? .retry(after: nil) : .configurationError("no access token for FCM: \(error)")
                return FCMSendOutcome(disposition: disposition, failure: error.description, attempts: attempt)
            } catch {
                if attempt < policy.maxAttempts {
                    await pause(policy.pause(after: attempt, retryAfter: nil, unit: .random(in: 0...1)))
                    continue
                }
                return FCMSendOutcome(
                    disposition: .retry(after: nil), failure: "no access token for FCM: \(error)", attempts: attempt)
            }

            let response: APNsResponse
            do {
                response = try await transport.send(
                    APNsRequest(
                        method: .post, path: request.path, headers: request.headers(accessToken: token.value),
                        body: body))
            } catch {
                if attempt < policy.maxAttempts {
                    await pause(policy.pause(after: attempt, retryAfter: nil, unit: .random(in: 0...1)))
                    continue
                }
                return FCMSendOutcome(disposition: .retry(after: nil), failure: "\(error)", attempts: attempt)
            }
            if response.isSuccess {
                return FCMSendOutcome(
                    disposition: .delivered(name: FCMSendAnswer.messageName(in: response.body) ?? ""),
                    attempts: attempt)
            }
            let error = FCMError(
                httpStatus: response.status, body: response.body, retryAfter: response.retryAfter, now: now())
            let disposition = FCMDisposition(error)
            switch disposition {
            case .retry(let after) where attempt < policy.maxAttempts:
                await pause(policy.pause(after: attempt, retryAfter: after, unit: .random(in: 0...1)))
            case .renewTokenAndRetry where !renewed:
                renewed = true
                await tokens.discard(token.value)
            default:
                return FCMSendOutcome(disposition: disposition, error: error, attempts: attempt)
            }
        }
    }

    /// Closes the connections.
    public func shutdown() async {
        await tokenTransport?.shutdown()
        await transport.shutdown()
    }
}
