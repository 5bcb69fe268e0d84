/// Where one activity's pushes go.
public enum PushTarget: Sendable, Hashable, CustomStringConvertible {
    /// An update token from the running activity (`pushTokenUpdates`).
    case device(String)
    /// A push-to-start token (`pushToStartTokenUpdates`) for the start; the updates after it go
    /// to the update token the started activity reports, once ``PushDelivery`` is told it.
    case pushToStart(String)
    /// A broadcast channel (iOS 18): one push reaches every subscribed activity.
    case channel(String)

    public var description: String {
        switch self {
        case .device(let token): "token \(token.prefix(8))…"
        case .pushToStart(let token): "push-to-start token \(token.prefix(8))…"
        case .channel(let id): "channel \(id)"
        }
    }
}
