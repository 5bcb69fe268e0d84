import Foundation
import NIOCore
import NIOPosix

/// Why a TCP connection could not be made or broke, in words for the person running Liveline:
/// "connection refused", "cannot resolve feed.example", "no connection within 10s", rather
/// than NIO's `SingleConnectionFailure(…) (errno: 111)`. Shared by the APNs client and the
/// bridge's stream reader.
public enum ConnectFailure {
    /// The words for a refused connection: nothing listens at the address.
    public static let refused = "connection refused"

    /// The cause of `error` in words, or nil when it is not a socket, resolution or channel
    /// error (the caller describes TLS and protocol errors itself).
    public static func cause(of error: any Error) -> String? {
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return cause(of: first.error) ?? "\(first.error)" }
            if let dns = error.dnsAAAAError ?? error.dnsAError { return "cannot resolve \(error.host) (\(dns))" }
            return "cannot connect to \(error.host):\(error.port)"
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return refused
            case ECONNRESET: return "connection reset by the server"
            case ETIMEDOUT: return "connection timed out"
            case EHOSTUNREACH, ENETUNREACH: return "host unreachable"
            case EPIPE: return "connection closed by the server (broken pipe)"
            default: return "\(error)"
            }
        }
        if let error = error as? NIOCore.ChannelError {
            switch error {
            case .connectTimeout(let timeout): return "no connection within \(timeout.nanoseconds / 1_000_000_000)s"
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                return "connection closed by the server"
            default: return "\(error)"
            }
        }
        return nil
    }
}
