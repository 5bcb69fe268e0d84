/// What became of one device's renewal push, as ``RenewalSender`` reports it.
public enum RenewalResult: String, Sendable, Hashable, CaseIterable {
    /// APNs took the successor's start.
    case started
    /// APNs took the predecessor's end (or its token was gone): the device is renewed.
    case ended
    /// The successor could not be started; the device keeps its activity.
    case refused
    /// The predecessor's end could not be sent; it stays until the system ends it.
    case endFailed = "end_failed"
    /// A start whose answer is unknown (an instance died, a stop's cutoff), not sent again.
    case inDoubt = "in_doubt"
}

/// What ``RenewalSender`` reports as it works: the metrics listen. Called from the sending
/// task; keep it quick.
public protocol RenewalObserver: Sendable {
    /// One device's renewal push came to `result`.
    func renewal(_ result: RenewalResult)
}

/// Reports nowhere.
public struct SilentRenewalObserver: RenewalObserver {
    /// An observer that reports nothing.
    public init() {}
    public func renewal(_ result: RenewalResult) {}
}
