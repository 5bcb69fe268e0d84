/// Where one activity's pushes go: its start (if started by push) and its updates.
public struct PushTarget: Sendable, Hashable, CustomStringConvertible {
    /// Where updates and the end go.
    public enum Updates: Sendable, Hashable {
        /// An update token from the running activity (`pushTokenUpdates`).
        case token(String)
        /// The update token the activity reports after its push-to-start (`input-push-token`),
        /// once ``PushDelivery/setUpdateToken(_:for:)`` is told it.
        case reportedToken
        /// A broadcast channel (iOS 18): one push reaches every subscribed activity.
        /// `storesMessages` is the channel's message-storage policy 1; APNs requires
        /// `apns-expiration: 0` on channels that store nothing (policy 0).
        case channel(String, storesMessages: Bool = false)
    }

    /// The push-to-start token (`pushToStartTokenUpdates`) for the start push, if any.
    public var startToken: String?
    /// Where the activity's updates and its end go.
    public var updates: Updates

    /// A target sending updates to `updates`, and the start to `startToken` when there is one.
    public init(startToken: String? = nil, updates: Updates) {
        self.startToken = startToken
        self.updates = updates
    }

    /// Updates to an activity the app started.
    public static func device(_ token: String) -> PushTarget { PushTarget(updates: .token(token)) }
    /// A start by push, then updates to the token the started activity reports.
    public static func pushToStart(_ token: String) -> PushTarget {
        PushTarget(startToken: token, updates: .reportedToken)
    }
    /// Updates to a broadcast channel.
    public static func channel(_ id: String, storesMessages: Bool = false) -> PushTarget {
        PushTarget(updates: .channel(id, storesMessages: storesMessages))
    }

    public var description: String {
        let route: String
        switch updates {
        case .token(let token): route = "token \(token.prefix(8))…"
        case .reportedToken: route = "the token it reports"
        case .channel(let id, _): route = "channel \(id)"
        }
        return startToken.map { "push-to-start token \($0.prefix(8))…, then \(route)" } ?? route
    }
}
