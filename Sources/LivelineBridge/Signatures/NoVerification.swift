import HTTPTypes

/// Accepts every webhook without checking anything.
///
/// For trying the bridge on one machine only: anyone who can reach the listener can then make
/// pushes. The configuration must allow it only on a loopback listener, which
/// ``isAllowed(onListenHost:)`` decides.
public struct NoVerification: WebhookVerifier {
    /// A verifier that checks nothing.
    public init() {}

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        VerifiedWebhook()
    }

    /// Whether a listener on `host` is reachable from this machine only: `localhost`, an IPv4
    /// address in 127.0.0.0/8, or `::1` (bracketed or not). Anything else, `0.0.0.0` and
    /// host names included, is refused.
    public static func isAllowed(onListenHost host: String) -> Bool {
        var host = host[...]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.lowercased() == "localhost" { return true }
        if host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        return isIPv4Loopback(host)
    }

    /// Four decimal octets, each 0...255 without leading zeros, the first one 127.
    private static func isIPv4Loopback(_ host: Substring) -> Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        var values: [Int] = []
        for octet in octets {
            guard (1...3).contains(octet.count), octet.allSatisfy(\.isASCII), octet.allSatisfy(\.isNumber),
                let value = Int(octet), value <= 255, octet.count == 1 || octet.first != "0"
            else { return false }
            values.append(value)
        }
        return values.first == 127
    }
}
