import Foundation

/// A push waiting to be sent: the bytes are final, built by the dispatcher.
public struct OutboxPush: Sendable, Hashable {
    public var activityKey: String
    public var payload: [UInt8]
    /// The APNs request headers (`apns-push-type`, `apns-topic`, …).
    public var headers: [String: String]
    public var priority: Int
    public var dueAt: Date

    public init(activityKey: String, payload: [UInt8], headers: [String: String], priority: Int, dueAt: Date) {
        self.activityKey = activityKey
        self.payload = payload
        self.headers = headers
        self.priority = priority
        self.dueAt = dueAt
    }
}

/// A push claimed for sending, with the attempts already made.
public struct ClaimedPush: Sendable, Hashable {
    public var id: Int64
    public var push: OutboxPush
    public var attempts: Int
}

/// What APNs answered (or the transport said) for one push.
public struct PushAnswer: Sendable, Hashable {
    public var at: Date
    /// The HTTP status; 0 when no answer came.
    public var status: Int
    /// APNs' `reason`, if any.
    public var reason: String?
    public var apnsID: String?

    public init(at: Date, status: Int, reason: String? = nil, apnsID: String? = nil) {
        self.at = at
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
    }
}

/// What became of a failed push.
public enum PushFailureOutcome: Sendable, Hashable {
    /// Pending again, due at the retry time; `attempts` failed so far.
    case retryScheduled(attempts: Int)
    /// The last attempt failed: moved to the dead letters under this id.
    case deadLettered(id: Int64)
    /// No such push in the outbox (already sent or moved).
    case notFound
}
