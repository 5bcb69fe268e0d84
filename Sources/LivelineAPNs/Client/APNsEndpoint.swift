/// Where the client connects: Apple's sandbox or production host, or a URL (the mock).
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The host name to connect to (and to send as the TLS server name).
    public var host: String
    /// The TCP port: 443 for Apple's hosts.
    public var port: Int
    /// TLS with ALPN `h2`, or h2c with prior knowledge (`http://`, for a local mock).
    public var tls: Bool
    /// A PEM file of certificates to trust (the mock's self-signed one), instead of the system's.
    public var trustedCertificates: String?

    /// An endpoint at `host` and `port`; TLS and the system's trust store unless told otherwise.
    public init(host: String, port: Int, tls: Bool = true, trustedCertificates: String? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.trustedCertificates = trustedCertificates
    }

    /// `api.sandbox.push.apple.com:443`, for development builds.
    public static let sandbox = APNsEndpoint(host: "api.sandbox.push.apple.com", port: 443)
    /// `api.push.apple.com:443`, for TestFlight and App Store builds.
    public static let production = APNsEndpoint(host: "api.push.apple.com", port: 443)

    /// Parses `https://host[:port]` or `http://host[:port]` (h2c).
    public init(url: String, trustedCertificates: String? = nil) throws(EndpointError) {
        var rest = Substring(url)
        let tls: Bool
        if rest.hasPrefix("https://") {
            tls = true
            rest = rest.dropFirst(8)
        } else if rest.hasPrefix("http://") {
            tls = false
            rest = rest.dropFirst(7)
        } else {
            throw EndpointError(url: url, problem: "expected https://host[:port] (TLS) or http://host[:port] (h2c)")
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var host = String(rest)
        var port = tls ? 443 : 80
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                throw EndpointError(url: url, problem: "unclosed [ in an IPv6 address")
            }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65535).contains(value) else {
                    throw EndpointError(url: url, problem: "the port is not a number from 1 to 65535")
                }
                port = value
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]), (1...65535).contains(value) else {
                throw EndpointError(url: url, problem: "the port is not a number from 1 to 65535")
            }
            port = value
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { throw EndpointError(url: url, problem: "no host") }
        self.init(host: host, port: port, tls: tls, trustedCertificates: trustedCertificates)
    }

    /// The `:authority` of requests.
    public var authority: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return (tls && port == 443) ? shownHost : "\(shownHost):\(port)"
    }

    /// `host:port`, always with the port, for messages.
    public var hostAndPort: String {
        "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    public var description: String { "\(tls ? "https" : "http")://\(authority)" }
}

/// An APNs URL that cannot be used.
public struct EndpointError: Error, Sendable, CustomStringConvertible {
    /// The URL as it was given.
    public var url: String
    /// What is wrong with it and what is accepted.
    public var problem: String
    public var description: String { "--apns-url \(url): \(problem)" }
}
