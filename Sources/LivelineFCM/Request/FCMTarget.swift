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

    /// The target as a user writes it: a registration token, or `fid:` and a Firebase
    /// installation ID (as `play --fcm-token` and the bridge's `fcm-token` take it).
    public var text: String {
        switch self {
        case .token(let value): value
        case .fid(let value): "fid:" + value
        }
    }

    /// The target `text` names (see ``text``); nil when it is empty, longer than 4096
    /// characters, or has spaces, quotes or control characters.
    public init?(parsing text: String) {
        let isFID = text.utf8.starts(with: "fid:".utf8)
        let value = isFID ? String(text.utf8.dropFirst(4)) ?? "" : text
        // Byte by byte: printable ASCII without quotes or backslashes (no Unicode properties).
        guard !value.isEmpty, value.utf8.count <= 4096,
            value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        self = isFID ? .fid(value) : .token(value)
    }
}
