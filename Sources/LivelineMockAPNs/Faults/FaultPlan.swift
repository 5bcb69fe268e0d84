import Liveline

/// The faults the mock injects, as set by flags, a YAML file or `POST /faults`.
///
/// Faults apply after validation (a malformed request still gets its real error) and before
/// the device: a push answered with an injected error never reaches the device. Counting
/// faults (GOAWAY or reset every N requests) count per connection.
public struct FaultPlan: Sendable, Hashable {
    /// An error returned for a fraction of valid pushes.
    public struct ErrorRate: Sendable, Hashable, CustomStringConvertible {
        public var error: APNsError
        /// Between 0 and 1.
        public var rate: Double

        public init(error: APNsError, rate: Double) {
            self.error = error
            self.rate = rate
        }

        /// Parses `STATUS:REASON:RATE`, e.g. `500:InternalServerError:0.01`.
        public init?(_ text: String) {
            let parts = text.split(separator: ":").map(String.init)
            guard parts.count == 3, let status = Int(parts[0]), (400...599).contains(status), !parts[1].isEmpty,
                let rate = Double(parts[2]), (0...1).contains(rate)
            else { return nil }
            self.init(error: APNsError(status: status, reason: parts[1]), rate: rate)
        }

        public var description: String { "\(error.status):\(error.reason):\(rate)" }
    }

    public var errors: [ErrorRate]
    public var latency: Latency?
    /// Answer `429 TooManyRequests` to a token's pushes beyond this many in a sliding minute.
    public var tooManyRequestsAfter: Int?
    /// Send GOAWAY and close after every N requests on a connection.
    public var goAwayEvery: Int?
    /// Reset the TCP connection (no response) on every Nth request of a connection.
    public var resetEvery: Int?
    public var shutdownWindows: [ShutdownWindow]
    /// Tokens whose activity is gone (the user removed it, or the app): pushes to them get
    /// 410 `Unregistered`, as APNs answers for a token that is no longer valid.
    public var unregisteredTokens: Set<String>
    /// Tokens a device got in the other APNs environment (a development build's token sent to
    /// production, or the reverse): pushes to them get 400 `BadDeviceToken`, as APNs answers. A
    /// test runs one mock per environment, each with the other's tokens here.
    public var otherEnvironmentTokens: Set<String>
    /// Seeds the random draws (error rates, latency), per connection.
    public var seed: UInt64

    public init(
        errors: [ErrorRate] = [], latency: Latency? = nil, tooManyRequestsAfter: Int? = nil,
        goAwayEvery: Int? = nil, resetEvery: Int? = nil, shutdownWindows: [ShutdownWindow] = [],
        unregisteredTokens: Set<String> = [], otherEnvironmentTokens: Set<String> = [], seed: UInt64 = 1
    ) {
        self.errors = errors
        self.latency = latency
        self.tooManyRequestsAfter = tooManyRequestsAfter
        self.goAwayEvery = goAwayEvery
        self.resetEvery = resetEvery
        self.shutdownWindows = shutdownWindows
        self.unregisteredTokens = unregisteredTokens
        self.otherEnvironmentTokens = otherEnvironmentTokens
        self.seed = seed
    }

    /// No faults.
    public static let none = FaultPlan()

    public var isEmpty: Bool {
        errors.isEmpty && latency == nil && tooManyRequestsAfter == nil && goAwayEvery == nil && resetEvery == nil
            && shutdownWindows.isEmpty && unregisteredTokens.isEmpty && otherEnvironmentTokens.isEmpty
    }

    /// The injected error for a roll in `0..<1`, if any: rates stack in order.
    func error(forRoll roll: Double) -> APNsError? {
        var cumulative = 0.0
        for entry in errors {
            cumulative += entry.rate
            if roll < cumulative { return entry.error }
        }
        return nil
    }
}
