/// One of APNs' two environments. A device token belongs to one: a development build's to
/// `sandbox`, a TestFlight or App Store build's to `production`; the other answers it
/// `400 BadDeviceToken`.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// `api.sandbox.push.apple.com`: tokens of apps built by Xcode for development.
    case sandbox
    /// `api.push.apple.com`: tokens of apps from TestFlight and the App Store.
    case production

    public var description: String { rawValue }

    /// The other environment, for the hint after `BadDeviceToken`.
    public var other: APNsEnvironment { self == .sandbox ? .production : .sandbox }

    public static func < (a: APNsEnvironment, b: APNsEnvironment) -> Bool { a == .sandbox && b == .production }
}

/// The environments a bridge sends to, and the one a token that names none goes to: what a
/// registration or a follower may name in `"environment"`.
public struct APNsEnvironments: Sendable, Hashable {
    /// In order; never empty.
    public var served: [APNsEnvironment]
    /// Where a token registered without an environment goes; one of `served`.
    public var defaultEnvironment: APNsEnvironment

    /// The environments `served`, with `defaultEnvironment` added when missing, in order.
    public init(served: [APNsEnvironment], defaultEnvironment: APNsEnvironment) {
        self.served = Array(Set(served + [defaultEnvironment])).sorted()
        self.defaultEnvironment = defaultEnvironment
    }

    /// Both, sandbox by default: a bridge whose clients are not known (a test's HTTP server).
    public static let both = APNsEnvironments(served: APNsEnvironment.allCases, defaultEnvironment: .sandbox)

    /// The environment a token of `environment` goes to (nil: it named none).
    public func resolve(_ environment: APNsEnvironment?) -> APNsEnvironment { environment ?? defaultEnvironment }
}
