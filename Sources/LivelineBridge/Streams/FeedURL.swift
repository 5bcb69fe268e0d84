import Foundation

/// An `http://` or `https://` URL a stream, or its recovery timeline, is read from.
///
/// Its ``description`` shows the scheme, host, port and path but never the query, where feeds
/// such as Sportradar's carry the API key (`?api_key=…`), so logs and errors can name the URL.
public struct FeedURL: Sendable, Hashable, CustomStringConvertible {
    /// Whether to connect with TLS (`https://`).
    public let tls: Bool
    /// The host without brackets (an IPv6 address stays bare here).
    public let host: String
    /// The TCP port: the URL's, else 443 or 80.
    public let port: Int
    /// The path and query, as sent in the request line.
    public let target: String

    /// Parses `http(s)://host[:port]/path?query`.
    /// - Throws: a message saying what is wrong, for the configuration's located error.
    public init(parsing text: String) throws(FeedURLError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw FeedURLError("'\(text)' is not a URL; expected http://host/path or https://host/path")
        }
        guard scheme == "http" || scheme == "https" else {
            throw FeedURLError("'\(scheme)://' is not supported; expected an http:// or https:// URL")
        }
        guard let host = components.host, !host.isEmpty else {
            throw FeedURLError("'\(text)' has no host; expected \(scheme)://host/path")
        }
        tls = scheme == "https"
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (tls ? 443 : 80)
        guard (1...65535).contains(port) else { throw FeedURLError("port \(port) is out of range") }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// Whether the host is an IP address (no SNI, no name to check the certificate against).
    var hostIsAddress: Bool { host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." } }

    /// `host` or `[::1]` with the port when it is not the scheme's default, for `Host:`.
    var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (tls ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// `https://host/path`, the query left out (it may hold a key).
    public var description: String {
        let path =
            target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        return "\(tls ? "https" : "http")://\(authority)\(path)"
    }
}

/// Why a text is not a feed URL.
public struct FeedURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the text, and what a feed URL looks like.
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
