import NIOCore

/// A request handed to a connection, with what to call when it is answered or fails.
///
/// A plain callback rather than a promise: the connection calls it on its event loop, and no
/// callback has to be registered on a future from another thread (which would cost an
/// event-loop wake-up per push).
struct PendingRequest {
    var request: APNsRequest
    var authorization: String?
    var completion: @Sendable (Result<APNsResponse, any Error>) -> Void
    /// When to give up waiting, in NIO uptime nanoseconds.
    var deadline: NIODeadline
}
