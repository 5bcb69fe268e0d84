import Foundation
import LivelineCore
import NIOCore
import NIOPosix
import _CryptoExtras

/// Why a mock FCM could not start.
public struct MockFCMStartError: Error, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
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
    public let host: String
    public let port: Int
    private let state: MockFCMState
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(host: String, port: Int, state: MockFCMState, group: MultiThreadedEventLoopGroup, channel: any Channel)
    {
        self.host = host
        self.port = port
        self.state = state
        self.group = group
        self.channel = channel
    }

    public static func start(_ configuration: MockFCMConfiguration) async throws(MockFCMStartError) -> MockFCMServer {
        let state = MockFCMState(configuration: configuration, audience: "")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ProtocolSniffer(state: state))
                    }
                }
                .bind(host: configuration.host, port: configuration.port)
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw MockFCMStartError(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        let server = MockFCMServer(
            host: configuration.host, port: channel.localAddress?.port ?? configuration.port, state: state,
            group: group, channel: channel)
        state.setAudience(server.tokenURI)
        return server
    }

    /// `http://host:port`, FCM's address for a client.
    public var baseURL: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
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
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
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
