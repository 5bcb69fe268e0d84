import HTTPTypes

/// Checks the registry API's `Authorization: Bearer KEY` against the configured key hashes and
/// the keys stored with `addAPIKey`.
///
/// Every configured hash is compared, in constant time, whether or not one matched already;
/// the store compares its own the same way. A missing or unknown key answers 401 with
/// `WWW-Authenticate: Bearer`, and neither answers nor logs show any part of the key presented.
struct RegistryAuthenticator: Sendable {
    let configuredKeys: [APIKeyHash]
    let store: any RegistryStore

    /// Who the key belongs to, for logs: `config sha256:0a1b2c3d…` or `key NAME`.
    func authenticate(_ headers: HTTPFields) async throws(BridgeHTTPError) -> String {
        guard let value = headers[.authorization] else {
            throw Self.unauthorized("missing-api-key", "send the registry API key as Authorization: Bearer KEY")
        }
        let text = value[...]
        guard text.utf8.hasCaseInsensitivePrefix("Bearer ") else {
            throw Self.unauthorized("missing-api-key", "the Authorization header must be Bearer KEY")
        }
        let key = String(text.dropFirst("Bearer ".count).trimmingSpaces)
        guard !key.isEmpty else {
            throw Self.unauthorized("missing-api-key", "the Authorization header must be Bearer KEY")
        }

        var match: APIKeyHash?
        for hash in configuredKeys where hash.matches(key) && match == nil { match = hash }
        if let match { return "config \(match)" }

        let stored: String?
        do {
            stored = try await store.verifyAPIKey(key)
        } catch {
            throw BridgeHTTPError(
                .serviceUnavailable, code: "store-unavailable",
                reason: "API keys cannot be checked now; try again later")
        }
        guard let stored else {
            throw Self.unauthorized("bad-api-key", "the API key is not one this bridge knows")
        }
        return "key \(stored)"
    }

    private static func unauthorized(_ code: String, _ reason: String) -> BridgeHTTPError {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer realm=\"liveline\""
        return BridgeHTTPError(.unauthorized, code: code, reason: reason, headers: headers)
    }
}
