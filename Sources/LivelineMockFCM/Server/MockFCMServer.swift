import Foundation
import LivelineCore
import LivelineMockTLS
import NIOCore
import NIOPosix
import NIOSSL
import _CryptoExtras

/// Why a mock FCM could not start.
public struct MockFCMStartError: Error, Sendable, CustomStringConvertible {
    /// The address it was to listen on.
    public var host: String
    /// The port it was to listen on.
    public var port: Int
    /// What went wrong: the bind's error, or TLS's.
    public var reason: String

    public var description: String { "the mock FCM cannot listen on \(host):\(port): \(reason)" }
}

/// An FCM look-alike on a real socket: the OAuth 2.0 token endpoint and the HTTP v1 API's
/// `messages:send`, over HTTP/2 with prior knowledge (Liveline's client) or HTTP/1.1 (the Admin
/// SDKs), with FCM's request checks and error bodies, faults on demand, and a phone per app
/// instance that shows what its Live Update would (``AndroidPhone``).
///
/// ```swift
/// let mock = try await MockFCMServer.start(MockFCMConfiguration())
/// let json = try mock.makeServiceAccount(project: "liveline-demo")  // token_uri points at the mock
/// let client = try FCMClient(configuration: .init(account: try ServiceAccount(json: json, source: "mock"), url: mock.baseURL))
/// ```
public final class MockFCMServer: Sendable {
    /// The host it listens on.
    public let host: String
    /// The bound port (the real one when the configuration asked for 0).
    public let port: Int
    /// Whether it serves TLS (`https`) or plain (`http`).
    public let usesTLS: Bool
    /// The PEM of the self-signed certificate, when one was made.
    public let certificatePEM: String?
    /// Where that PEM was written, when a path was given: what clients trust.
    public let certificatePath: String?
    private let state: MockFCMState
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(
        host: String, port: Int, tls: MockTLS?, state: MockFCMState, group: MultiThreadedEventLoopGroup,
        channel: any Channel
    ) {
        self.host = host
        self.port = port
        self.usesTLS = tls != nil
        self.certificatePEM = tls?.certificatePEM
        self.certificatePath = tls?.certificatePath
        self.state = state
        self.group = group
        self.channel = channel
    }

    /// Starts listening with `configuration`; returns once the listener is bound.
    public static func start(_ configuration: MockFCMConfiguration) async throws(MockFCMStartError) -> MockFCMServer {
        var tls: MockTLS?
        if case .tls(let identity) = configuration.transport {
            do {
                // ALPN offers both: Liveline's client asks for h2, the Admin SDKs for http/1.1.
                tls = try MockTLS(
                    identity, host: configuration.host, commonName: "Liveline mock FCM", protocols: ["h2", "http/1.1"])
            } catch {
                throw MockFCMStartError(host: configuration.host, port: configuration.port, reason: "\(error)")
            }
        }
        let state = MockFCMState(configuration: configuration, audience: "")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        let sslContext = tls?.context
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        // TLS first; then the first bytes it decrypts choose HTTP/2 or HTTP/1.1.
                        if let sslContext { try pipeline.addHandler(NIOSSLServerHandler(context: sslContext)) }
                        try pipeline.addHandler(ProtocolSniffer(state: state))
                    }
                }
                .bind(host: configuration.host, port: configuration.port)
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw MockFCMStartError(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        let server = MockFCMServer(
            host: configuration.host, port: channel.localAddress?.port ?? configuration.port, tls: tls, state: state,
            group: group, channel: channel)
        state.setAudience(server.tokenURI)
        return server
    }

    /// `https://host:port` (TLS) or `http://host:port`, FCM's address for a client.
    public var baseURL: String {
        "\(usesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The token endpoint, the `token_uri` of the service accounts the mock accepts.
    public var tokenURI: String { baseURL + state.configuration.tokenPath }

    /// Accepts assertions signed with `publicKey` for `email`, granting tokens for `project`.
    public func addAccount(email: String, project: String, keyID: String?, publicKey: _RSA.Signing.PublicKey) {
        state.addAccount(.init(email: email, project: project, keyID: keyID, publicKey: publicKey))
    }

    /// A new service account for `project`, as the Firebase console's key file (JSON), whose
    /// `token_uri` is this mock's and whose key the mock accepts.
    public func makeServiceAccount(project: String) throws -> [UInt8] {
        try makeServiceAccount(project: project, key: MockServiceAccountKey())
    }

    /// A service account for `project` with a key made beforehand: making a 2048-bit RSA key takes
    /// a moment (seconds in a debug build), so a command makes it before it starts listening and
    /// writes the key file right after, before anyone can ask for it.
    public func makeServiceAccount(project: String, key account: MockServiceAccountKey) throws -> [UInt8] {
        let key = account.key
        let email = "liveline-mock@\(project).iam.gserviceaccount.com"
        let keyID = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        addAccount(email: email, project: project, keyID: keyID, publicKey: key.publicKey)
        var object = StateObject()
        object["type"] = .string("service_account")
        object["project_id"] = .string(project)
        object["private_key_id"] = .string(keyID)
        object["private_key"] = .string(key.pkcs8PEMRepresentation)
        object["client_email"] = .string(email)
        object["client_id"] = .string("1" + String(UInt32.random(in: 0...UInt32.max)))
        object["auth_uri"] = .string("https://accounts.google.com/o/oauth2/auth")
        object["token_uri"] = .string(tokenURI)
        var writer = JSONWriter(capacity: 4096)
        writer.value(.object(object))
        return writer.bytes
    }

    // MARK: Faults and the phones

    /// Answers the next `count` accepted sends (to `recipient` only, when given) with `answer`
    /// instead, after the faults injected before.
    public func inject(_ answer: FCMErrorAnswer, count: Int = 1, for recipient: FCMRecipient? = nil) {
        state.inject(.init(answer, count: count, recipient: recipient))
    }

    /// Forgets every access token granted, as if each had expired: the next send answers 401.
    public func revokeAccessTokens() { state.revokeAccessTokens() }

    /// Registers an app instance with `project` (the app's first launch), or uninstalls it.
    public func register(_ recipient: FCMRecipient, project: String, installed: Bool = true) {
        state.register(recipient, project: project, unregistered: !installed)
    }

    /// The phone of an app instance, as it is now; nil before anything was sent to it.
    public func phone(_ recipient: FCMRecipient) -> AndroidPhone? { state.phone(recipient) }

    /// The user demotes the Live Update of `activity`.
    @discardableResult
    public func demote(_ recipient: FCMRecipient, activity: String) -> PhoneOutcome? {
        state.demote(recipient, activity: activity)
    }

    /// The phone goes offline (FCM holds its messages) or comes back.
    @discardableResult
    public func setOnline(_ recipient: FCMRecipient, _ online: Bool) -> [PhoneOutcome] {
        state.setOnline(recipient, online)
    }

    /// The messages accepted, oldest first.
    public func messages() -> [MockFCMMessage] { state.messages() }

    public func stats() -> MockFCMStats { state.stats() }

    /// Stops listening and closes every connection.
    public func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// A service account's RSA key, made before the mock that accepts it (``MockFCMServer/makeServiceAccount(project:key:)``).
public struct MockServiceAccountKey: Sendable {
    let key: _RSA.Signing.PrivateKey

    /// A new 2048-bit key, as the Firebase console makes.
    public init() throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }
}
