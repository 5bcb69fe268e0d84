import Foundation
import HTTPTypes

/// The URL a sender posted to, as it signed it, when a proxy may stand between it and the
/// bridge: the proxy's view of the request, from the first hop it reports.
///
/// `Forwarded` (RFC 7239) wins: its first element's `proto` and `host`. Else `X-Forwarded-Proto`
/// and `X-Forwarded-Host`, first values. Else `http` and the request's own `Host`. The path and
/// query are the request's. A sender that lies here gains nothing: the URL is only an input to
/// a signature it must still make with the source's secret.
enum ForwardedURL {
    static func url(headers: HTTPFields, authority: String?, path: String?) -> String {
        var scheme: String?
        var host: String?
        if let forwarded = forwardedName.flatMap({ headers[$0] }), let first = forwarded.split(separator: ",").first {
            for pair in first.split(separator: ";") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<equals].trimmingSpaces.lowercased()
                let value = unquoted(pair[pair.index(after: equals)...].trimmingSpaces)
                if name == "proto", !value.isEmpty { scheme = value.lowercased() }
                if name == "host", !value.isEmpty { host = value }
            }
        }
        if scheme == nil, let proto = firstValue(forwardedProtoName.flatMap { headers[$0] }) {
            scheme = proto.lowercased()
        }
        if host == nil { host = firstValue(forwardedHostName.flatMap { headers[$0] }) }
        return "\(scheme ?? "http")://\(host ?? authority ?? "")\(path ?? "/")"
    }

    private static func firstValue(_ field: String?) -> String? {
        guard let first = field?.split(separator: ",").first?.trimmingSpaces, !first.isEmpty else { return nil }
        return String(first)
    }

    private static func unquoted(_ text: Substring) -> String {
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            return String(text.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
        }
        return String(text)
    }

    private static let forwardedName = HTTPField.Name("Forwarded")
    private static let forwardedProtoName = HTTPField.Name("X-Forwarded-Proto")
    private static let forwardedHostName = HTTPField.Name("X-Forwarded-Host")
}
