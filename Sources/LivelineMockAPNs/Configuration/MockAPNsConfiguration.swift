import Liveline
import LivelineMockTLS
import Logging

/// Everything ``MockAPNsServer/start(_:)`` needs. Defaults match `liveline mock-apns`.
public struct MockAPNsConfiguration: Sendable {
    /// How clients connect.
    public enum Transport: Sendable {
        /// HTTP/2 over TLS with ALPN `h2`, like APNs.
        case tls(TLSIdentity)
        /// HTTP/2 over cleartext with prior knowledge (`curl --http2-prior-knowledge`).
        case h2c
    }

    /// The certificate the TLS listener presents (the mocks share it: ``MockTLSIdentity``).
    public typealias TLSIdentity = MockTLSIdentity

    /// Which provider tokens are accepted.
    public enum Authentication: Sendable {
        /// Verify ES256 JWTs against these keys (docs/apns.md §3).
        case keys([ProviderKey])
        /// Skip every JWT check, for quick demos; requests without a token pass too.
        case acceptAnyToken
    }

    /// The device's priority-10 budget (``BudgetBucket``).
    public struct Budget: Sendable, Hashable {
        /// Pushes per hour; nil takes ``BudgetBucket/defaultPerHour(frequentUpdates:)``.
        public var perHour: Int?
        /// Whether the app declares `NSSupportsLiveActivitiesFrequentUpdates`.
        public var frequentUpdates: Bool

        public init(perHour: Int? = nil, frequentUpdates: Bool = false) {
            self.perHour = perHour
            self.frequentUpdates = frequentUpdates
        }

        public var effectivePerHour: Int { perHour ?? BudgetBucket.defaultPerHour(frequentUpdates: frequentUpdates) }
    }

    /// The address to listen on; a hostname or IP literal.
    public var host: String = "127.0.0.1"
    /// The port; 0 picks a free one (read it back from ``MockAPNsServer/port``).
    public var port: Int = 2197
    public var transport: Transport = .tls(.selfSigned(writeCertificateTo: nil))
    public var authentication: Authentication = .acceptAnyToken
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` once a request carried a valid token (1 before).
    public var maxConcurrentStreams: Int = 1000
    /// The most client connections open at once; one more is closed as it arrives, with a
    /// warning, so a client that leaks connections finds out here rather than in production.
    public var maxConnections: Int = 10_000
    public var budget = Budget()
    public var contentStateShapes = ContentStateShapes.none
    /// The app's own types (`--app`): when set, every push is checked against them instead of
    /// ``contentStateShapes``, and a start with an unknown `attributes-type` would not render.
    public var appDecoding: (any ActivityPayloadDecoding)?
    public var faults = FaultPlan.none
    /// Channel id → update tokens subscribed at start, like `--subscribe CHANNEL=TOKEN`.
    public var subscriptions: [String: [String]] = [:]
    /// The device clock; tests inject a ``ManualClock``.
    public var clock: any MockClock = WallClock()
    /// Address of the HTTP/1.1 inspection API; nil serves none (the library API still works).
    public var inspection: (host: String, port: Int)?
    /// Event-loop threads serving connections.
    public var eventLoopThreads: Int = NIOCoreCount.value
    /// Pushes kept per token or channel in the history.
    public var historyPerToken: Int = 32
    /// Whether the history keeps the body of every push; by default a rendered push's body is
    /// dropped once a newer push arrives (the last one and those not rendered are kept).
    public var keepsEveryPayload = false
    /// Whether the history keeps the newest push's body even when the device rendered it. Off
    /// for load tests (`liveline load`'s embedded mock), where it is most of what a token costs.
    public var keepsLastPayload = true
    /// Tokens and channels that keep a history; pushes to more are counted but not kept, so
    /// memory stays bounded in load tests.
    public var maxHistoryTokens: Int = 10_000
    public var logger = Logger(label: "liveline.mock-apns")
    /// The live dashboard page; nil serves none.
    public var dashboard: DashboardConfiguration?

    public init() {}
}
