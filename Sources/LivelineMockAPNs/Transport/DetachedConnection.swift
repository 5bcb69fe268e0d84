import NIOCore

extension MockAPNsServer {
    /// The handler of one mock connection, made without a server or a socket: it answers the
    /// bytes written into its channel as a connection accepted by a server with `configuration`
    /// would (TLS aside). For feeding a connection arbitrary bytes, as the fuzzers do.
    package static func detachedConnectionHandler(_ configuration: MockAPNsConfiguration) -> any ChannelHandler {
        let verifier: JWTVerifier? =
            switch configuration.authentication {
            case .acceptAnyToken: nil
            case .keys(let keys): JWTVerifier(keys: keys)
            }
        return APNsConnectionHandler(
            state: MockAPNsState(configuration: configuration), validator: RequestValidator(verifier: verifier),
            maxConcurrentStreams: max(1, configuration.maxConcurrentStreams), connectionNumber: 1)
    }

    /// Whether the mock accepts `token` as a provider token from one of `keys`: its shape,
    /// `alg`, `kid`, `iss`, `iat` and signature (ages aside), as on a connection.
    package static func acceptsProviderToken(_ token: Substring, keys: [ProviderKey]) -> Bool {
        if case .success = JWTVerifier(keys: keys).verify(token) { true } else { false }
    }
}
