import LivelineCore
import LivelineMockTLS

/// How a ``MockFCMServer`` listens and behaves.
public struct MockFCMConfiguration: Sendable {
    /// How clients connect. Either way one port serves HTTP/2 and HTTP/1.1.
    public enum Transport: Sendable {
        /// Without TLS: HTTP/2 with prior knowledge, or HTTP/1.1 (`http://`).
        case plain
        /// TLS, as `fcm.googleapis.com` (`https://`): ALPN offers `h2` and `http/1.1`.
        case tls(MockTLSIdentity)
    }

    /// The address to listen on (`127.0.0.1` by default; port 0 picks a free one).
    public var host: String
    /// The port; 0 picks a free one (read it back from ``MockFCMServer/port``).
    public var port: Int
    /// Plain or TLS; plain by default for the library, TLS by default for `liveline mock-fcm`.
    public var transport: Transport = .plain
    /// Event-loop threads that serve the connections.
    public var eventLoopThreads = 1
    /// The path of the OAuth 2.0 token endpoint, the `token_uri` of the service accounts the
    /// mock makes.
    public var tokenPath: String
    /// How long an access token the mock grants lives, in seconds (Google's: an hour).
    public var tokenLifetime: Int64
    /// The app every phone has installed: its channels, keys and permission.
    public var app: AndroidAppModel
    /// Streams per connection the mock allows (FCM's front end allows 100).
    public var maxConcurrentStreams: Int
    /// How many accepted messages the inspection keeps, newest last.
    public var historyLimit: Int
    /// The mock's clock, in milliseconds since 1970 (tests pass a fake one).
    public var clock: @Sendable () -> Millis

    public init(
        host: String = "127.0.0.1", port: Int = 0, tokenPath: String = "/token", tokenLifetime: Int64 = 3600,
        app: AndroidAppModel = AndroidAppModel(), maxConcurrentStreams: Int = 100, historyLimit: Int = 10_000,
        clock: @escaping @Sendable () -> Millis = { WallClock().now() }
    ) {
        self.host = host
        self.port = port
        self.tokenPath = tokenPath
        self.tokenLifetime = tokenLifetime
        self.app = app
        self.maxConcurrentStreams = maxConcurrentStreams
        self.historyLimit = historyLimit
        self.clock = clock
    }
}
