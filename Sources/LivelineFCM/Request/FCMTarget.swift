/// Which app instance an FCM message goes to.
///
/// FCM's HTTP v1 `Message` names it by its registration `token` or, in the current API, by its
/// Firebase installation ID, `fid` (the Admin SDKs deprecate `token` for it). A follower may
/// register either; each is written under its own key.
public enum FCMTarget: Sendable, Hashable, CustomStringConvertible {
    case token(String)
    case fid(String)

    /// The `Message` field that carries it: `token` or `fid`.
    public var field: String {
        switch self {
        case .token: "token"
        case .fid: "fid"
        }
    }

    public var value: String {
        switch self {
        case .token(let value), .fid(let value): value
        }
    }

    /// The kind and the value's last characters, never the whole value.
    public var description: String { "\(field) …\(value.suffix(6))" }
}
