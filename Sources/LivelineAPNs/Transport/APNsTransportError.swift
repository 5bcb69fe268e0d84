/// Why a request failed without an HTTP answer, with the host and the cause.
///
/// `host` is `host:port` as configured. The description is written for the person running
/// Liveline, e.g. "GOAWAY ENHANCE_YOUR_CALM from 127.0.0.1:2197: too many requests".
public enum APNsTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The TCP connection could not be made (refused, unreachable, timed out); `cause` in
    /// words (``ConnectFailure``).
    case connectFailed(host: String, cause: String)
    /// TLS failed before the connection was up: an untrusted or mismatched certificate, or a
    /// failed handshake. The user must fix the setup (trust roots, host name); retrying won't help.
    case tlsFailed(host: String, cause: String)
    /// TLS came up without HTTP/2 (ALPN did not pick h2).
    case notHTTP2(host: String, negotiated: String?)
    /// The connection closed (or broke) before the server answered; it may or may not have
    /// processed the request. `cause` says why, when known.
    case connectionClosed(host: String, cause: String?)
    /// The server sent GOAWAY (`code` by name, `reason` from its debug data): this request was
    /// not processed and may be retried elsewhere.
    case goingAway(host: String, code: String, reason: String?)
    /// The server broke HTTP/2 (RFC 9113); `detail` is the error code and what it did.
    case protocolError(host: String, detail: String)
    /// The server reset the stream (RST_STREAM with `code`, by name).
    case streamReset(host: String, code: String)
    /// No answer in time.
    case timedOut(host: String)

    public var description: String {
        switch self {
        case .connectFailed(let host, let cause):
            cause == ConnectFailure.refused ? "connection refused by \(host)" : "cannot connect to \(host): \(cause)"
        case .tlsFailed(let host, let cause):
            Self.isCertificateProblem(cause)
                ? "TLS: certificate not trusted for \(host) (\(cause)): trust the server's certificate (a mock's self-signed one) or check the host name"
                : "TLS: handshake with \(host) failed (\(cause))"
        case .notHTTP2(let host, let negotiated):
            "\(host) did not agree to HTTP/2 (ALPN chose \(negotiated.map { "\"\($0)\"" } ?? "nothing"), not h2)"
        case .connectionClosed(let host, let cause):
            "connection to \(host) closed: \(cause ?? "before APNs answered")"
        case .goingAway(let host, let code, let reason):
            "GOAWAY \(code) from \(host)\(reason.map { ": \($0)" } ?? "")"
        case .protocolError(let host, let detail): "protocol error from \(host): \(detail)"
        case .streamReset(let host, let code): "\(host) reset the stream (\(code))"
        case .timedOut(let host): "\(host) did not answer in time"
        }
    }

    /// The `host:port` the error is about.
    public var host: String {
        switch self {
        case .connectFailed(let host, _), .tlsFailed(let host, _), .notHTTP2(let host, _),
            .connectionClosed(let host, _),
            .goingAway(let host, _, _), .protocolError(let host, _), .streamReset(let host, _), .timedOut(let host):
            host
        }
    }

    /// Whether the request may be sent again: not after a setup error.
    public var isRetryable: Bool { !isSetupError }

    /// Whether the user must fix the setup before anything can be sent: TLS certificate or
    /// handshake failures, or a server that does not speak HTTP/2.
    public var isSetupError: Bool {
        switch self {
        case .tlsFailed, .notHTTP2: true
        default: false
        }
    }

    private static func isCertificateProblem(_ cause: String) -> Bool {
        let lowered = cause.lowercased()
        return lowered.contains("certificate") || lowered.contains("hostname") || lowered.contains("verify")
    }
}
