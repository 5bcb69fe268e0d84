extension APNsRequest {
    /// ``path`` as logs show it: a device token masked (``masked(token:)``).
    var maskedPath: String {
        switch content {
        case .devicePush(let token, _, _, _):
            return Self.devicePathPrefix + Self.masked(token: token)
        case .general(let path, _, _):
            guard path.hasPrefix(Self.devicePathPrefix) else { return path }
            return Self.devicePathPrefix + Self.masked(token: String(path.dropFirst(Self.devicePathPrefix.count)))
        }
    }

    /// A device token as logs show it: its first six and last four characters, enough to tell
    /// tokens apart in a log, not to push to one. A short token shows only its length.
    public static func masked(token: String) -> String {
        guard token.count >= 16 else { return "…(\(token.count))" }
        return "\(token.prefix(6))…\(token.suffix(4))"
    }
}
