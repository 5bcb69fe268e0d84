import Foundation
import Liveline
import LivelineAPNs
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Why a stream connection ended or could not be made, with the URL and the cause, written for
/// the person running the bridge: "stream https://feed.example/soccer: connection refused",
/// "HTTP 401 from stream https://feed.example/soccer: Invalid API key", "stream
/// https://feed.example/soccer: no data for 30s (heartbeat timeout)".
public enum StreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The TCP connection could not be made.
    case connectFailed(url: FeedURL, cause: String)
    /// TLS failed: an untrusted or mismatched certificate, or a failed handshake.
    case tlsFailed(url: FeedURL, cause: String)
    /// The server answered with another status than 200; `body` is the start of its answer.
    case httpStatus(url: FeedURL, status: Int, body: String)
    /// Nothing arrived for this long.
    case heartbeatTimeout(url: FeedURL, after: Millis)
    /// The connection broke or the server closed it; `cause` when known.
    case closed(url: FeedURL, cause: String?)
    /// The server ended the response, as if the stream were over.
    case ended(url: FeedURL)
    /// An event could not be stored; the stream reconnects and recovers from the last one stored.
    case storeFailed(url: FeedURL, cause: String)
    /// The recover URL did not give the missed events; `url` as ``FeedURL`` prints it.
    case recoverFailed(url: String, cause: String)

    public var description: String {
        switch self {
        case .connectFailed(let url, let cause): "stream \(url): \(cause)"
        case .tlsFailed(let url, let cause): "stream \(url): TLS: \(cause)"
        case .httpStatus(let url, let status, let body):
            "HTTP \(status) from stream \(url)\(body.isEmpty ? "" : ": \(body)")\(Self.advice(status))"
        case .heartbeatTimeout(let url, let after):
            "stream \(url): no data for \(DurationText.format(after)) (heartbeat timeout)"
        case .closed(let url, let cause):
            "stream \(url): connection closed\(cause.map { ": \($0)" } ?? " by the server")"
        case .ended(let url): "stream \(url): the server ended the stream"
        case .storeFailed(let url, let cause):
            "stream \(url): an event could not be stored (\(cause)); reconnecting to recover it"
        case .recoverFailed(let url, let cause): "recovery from \(url) failed: \(cause)"
        }
    }

    /// Whether the user must fix the configuration (a key, a URL, a certificate): a retry alone
    /// will not help. Such errors are logged at error level; the stream still retries.
    public var isConfigurationProblem: Bool {
        switch self {
        case .httpStatus(_, let status, _): [400, 401, 403, 404, 405, 410].contains(status)
        case .tlsFailed: true
        default: false
        }
    }

    /// A small fixed word for the reconnect metric's `reason` label.
    public var metricReason: String {
        switch self {
        case .connectFailed: "connect"
        case .tlsFailed: "tls"
        case .httpStatus(_, let status, _): "http_\(status / 100)xx"
        case .heartbeatTimeout: "heartbeat_timeout"
        case .closed: "closed"
        case .ended: "ended"
        case .storeFailed: "store"
        case .recoverFailed: "recover"
        }
    }

    private static func advice(_ status: Int) -> String {
        switch status {
        case 401, 403: " (check the source's headers: the API key)"
        case 404: " (check the source's url)"
        case 300..<400: " (redirects are not followed; put the final URL in the configuration)"
        default: ""
        }
    }

    /// The cause of a failed connect or a broken connection, in words: "connection refused",
    /// "cannot resolve feed.example", "no connection within 10s".
    static func cause(of error: any Error) -> String {
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first, isTLS(first.error) {
            return tlsCause(first.error)
        }
        if let words = ConnectFailure.cause(of: error) { return words }
        if let error = error as? HTTPParserError {
            return error == .invalidEOFState
                ? "cut by the server in the middle of the stream" : "the server broke HTTP/1.1 (\(error))"
        }
        if error is NIOSSLError || error is BoringSSLError { return tlsCause(error) }
        return "\(error)"
    }

    /// A TLS failure in words: an untrusted certificate says what to do about it.
    private static func tlsCause(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.lowercased().contains("certificate verify") {
            return "the server's certificate is not trusted (trust its CA with ca-file, or check the host name in url)"
        }
        return "handshake failed (\(text.count > 160 ? String(text.prefix(160)) + "…" : text))"
    }

    /// Whether `error` is a TLS failure.
    static func isTLS(_ error: any Error) -> Bool {
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first {
            return isTLS(first.error)
        }
        return error is NIOSSLError || error is BoringSSLError
    }
}
