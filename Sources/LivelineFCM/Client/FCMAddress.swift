import LivelineAPNs

/// Where an HTTP/2 request goes: the server (scheme, host, port) and the path, read from a URL
/// such as FCM's `https://fcm.googleapis.com` or a service account's `token_uri`.
struct FCMAddress: Sendable, Hashable {
    var endpoint: APNsEndpoint
    /// The URL's path, `/` when it has none.
    var path: String

    /// `setting` names where the URL came from, in the error.
    init(url: String, trustedCertificates: String?, setting: String) throws(FCMClientError) {
        do {
            endpoint = try APNsEndpoint(url: url, trustedCertificates: trustedCertificates)
        } catch {
            throw .badURL(setting: setting, url: url, problem: error.problem)
        }
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
    }
}

/// Why an ``FCMClient`` could not be made.
public enum FCMClientError: Error, Sendable, Hashable, CustomStringConvertible {
    case badURL(setting: String, url: String, problem: String)
    case transport(String)

    public var description: String {
        switch self {
        case .badURL(let setting, let url, let problem): "\(setting) \(url): \(problem)"
        case .transport(let reason): "cannot set up the connection to FCM: \(reason)"
        }
    }
}
