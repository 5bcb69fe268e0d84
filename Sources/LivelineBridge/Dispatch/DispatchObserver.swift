import Liveline

/// What the dispatcher and the outbox sender report as they work: metrics and logs listen.
/// Called from the dispatching task; keep it quick.
public protocol DispatchObserver: Sendable {
    /// APNs, or FCM for a key on an Android phone (or the transport, status 0), answered a push.
    func pushAnswered(platform: Platform, status: Int, reason: String?)
    /// From the webhook's receipt to APNs' answer, for pushes a webhook caused.
    func receiptToAnswer(seconds: Double)
    /// A failed push will be tried again.
    func retried(reason: String)
    /// A push gave up and went to the dead letters.
    func deadLettered()
    /// An event was applied or superseded.
    func eventDispatched(source: String, outcome: String)
}

extension DispatchObserver {
    public func eventDispatched(source: String, outcome: String) {}
}

/// Reports nowhere.
public struct SilentDispatchObserver: DispatchObserver {
    /// An observer that reports nothing.
    public init() {}
    public func pushAnswered(platform: Platform, status: Int, reason: String?) {}
    public func receiptToAnswer(seconds: Double) {}
    public func retried(reason: String) {}
    public func deadLettered() {}
}
