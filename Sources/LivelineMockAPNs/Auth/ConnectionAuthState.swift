import Liveline

/// The provider token a connection is using, and the rules APNs applies to it over time.
///
/// Owned by one connection handler and touched only on its event loop, so it needs no lock.
/// It caches the verified token: a client sends the same `authorization` header on every
/// request, and only a new token costs a signature check.
struct ConnectionAuthState {
    /// How old `iat` may get before APNs answers ExpiredProviderToken.
    static let maxTokenAge: Millis = 3_600_000
    /// How soon after adopting a token a connection may switch to another.
    static let minRefreshInterval: Millis = 1_200_000

    private var currentToken: Substring?
    /// The whole `authorization` header that brought the current token: a request that repeats
    /// it byte for byte (as clients do) needs no parsing.
    private var currentHeader: String?
    private var current: VerifiedToken?
    private var adoptedAt: Millis = 0

    /// Whether some request on this connection carried a valid token.
    private(set) var hasValidToken = false

    /// How the connection's current token departs from Apple's example (``TokenShape``);
    /// empty when it does not, or when any token is accepted.
    var tokenWarnings: [String] { current?.warnings ?? [] }

    /// Checks the `authorization` header of one request at `now`.
    ///
    /// With `verifier == nil` (accept any token) every request passes.
    mutating func authorize(_ header: String?, now: Millis, verifier: JWTVerifier?) -> APNsError? {
        guard let verifier else {
            hasValidToken = true
            return nil
        }
        guard let header else { return .missingProviderToken }
        if let current, let currentHeader, Self.sameBytes(header, currentHeader) {
            return isExpired(current, now: now) ? .expiredProviderToken : nil
        }
        return authorize(parsing: header, now: now, verifier: verifier)
    }

    private mutating func authorize(parsing text: String, now: Millis, verifier: JWTVerifier) -> APNsError? {
        let header = Substring(text)
        guard header.utf8.count > 7, Self.hasBearerPrefix(header) else { return .invalidProviderToken }
        let token = header.dropFirst(7).drop(while: { $0 == " " })
        if let current, token == currentToken {
            return isExpired(current, now: now) ? .expiredProviderToken : nil
        }
        let verified: VerifiedToken
        switch verifier.verify(token) {
        case .success(let value): verified = value
        case .failure(let error): return error
        }
        if isExpired(verified, now: now) { return .expiredProviderToken }
        if let current {
            guard current.teamID == verified.teamID else { return .invalidProviderToken }
            guard now - adoptedAt >= Self.minRefreshInterval else { return .tooManyProviderTokenUpdates }
        }
        currentToken = Substring(String(token))
        currentHeader = text
        current = verified
        adoptedAt = now
        hasValidToken = true
        return nil
    }

    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { a in
            b.withUTF8 { b in
                guard a.count == b.count else { return false }
                if a.baseAddress == b.baseAddress { return true }
                let a = UnsafeRawBufferPointer(a), b = UnsafeRawBufferPointer(b)
                var offset = 0
                while offset + 8 <= a.count {
                    guard
                        a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                            == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    else {
                        return false
                    }
                    offset += 8
                }
                while offset < a.count {
                    guard a[offset] == b[offset] else { return false }
                    offset += 1
                }
                return true
            }
        }
    }

    /// `bearer ` in any letter case, compared on bytes.
    private static let bearer: [UInt8] = Array("bearer ".utf8)

    private static func hasBearerPrefix(_ header: Substring) -> Bool {
        var index = 0
        for byte in header.utf8.prefix(7) {
            let expected = bearer[index]
            guard byte == expected || byte | 0x20 == expected else { return false }
            index += 1
        }
        return index == 7
    }

    private func isExpired(_ token: VerifiedToken, now: Millis) -> Bool {
        now - token.issuedAt * 1000 > Self.maxTokenAge
    }
}
