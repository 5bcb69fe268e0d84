/// The size limits APNs enforces on Live Activity payloads.
public enum PayloadLimits {
    /// A push to a device token.
    public static let device = 4096
    /// A broadcast push to a channel.
    public static let broadcast = 5120
}
