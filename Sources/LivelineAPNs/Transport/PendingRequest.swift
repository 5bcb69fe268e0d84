import NIOCore

/// A request handed to a connection, with the promise its response completes.
struct PendingRequest {
    var request: APNsRequest
    var authorization: String?
    var promise: EventLoopPromise<APNsResponse>
    /// When to give up waiting, in NIO uptime nanoseconds.
    var deadline: NIODeadline
}
