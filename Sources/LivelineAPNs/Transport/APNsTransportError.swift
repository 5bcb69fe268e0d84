/// Why a request failed without an HTTP answer.
public enum APNsTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection could not be made.
    case connectFailed(String)
    /// The server closed the connection (or it broke) before answering; it may or may not have
    /// processed the request.
    case connectionClosed
    /// The server sent GOAWAY: this request was not processed and may be retried elsewhere.
    case goingAway(reason: String?)
    /// The server reset the stream.
    case streamReset(String)
    /// No answer in time.
    case timedOut
    /// TLS came up without HTTP/2 (ALPN did not pick h2).
    case notHTTP2

    public var description: String {
        switch self {
        case .connectFailed(let why): "cannot connect: \(why)"
        case .connectionClosed: "the connection closed before APNs answered"
        case .goingAway(let reason): "APNs is closing the connection (GOAWAY\(reason.map { ": \($0)" } ?? ""))"
        case .streamReset(let code): "APNs reset the stream (\(code))"
        case .timedOut: "APNs did not answer in time"
        case .notHTTP2: "the server did not agree to HTTP/2 (ALPN h2)"
        }
    }

    /// Whether the request may be sent again.
    public var isRetryable: Bool { self != .notHTTP2 }
}
