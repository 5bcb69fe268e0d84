import LivelineAPNs

/// Where a command's pushes go: a server named by URL, Apple's servers, or the mock APNs in
/// this process. Decided here, once, for `play`, `load` and `bridge serve`; each command then
/// wires what it chose (its own mock settings, its own banner).
enum APNsChoice: Equatable {
    /// A server named by URL (`--apns-url`, `load --target URL`): a mock elsewhere, or APNs.
    case server(APNsEndpoint)
    /// Apple's servers, in the environment the credentials are for.
    case apple(APNsEndpoint)
    /// The mock APNs started in this process, on loopback: no Apple account needed.
    case embeddedMock

    /// When the embedded mock is chosen.
    enum MockRule {
        /// When there is neither a URL nor credentials (`play`, `bridge serve`).
        case withoutCredentials
        /// Never: without a URL or credentials there is nothing to push to (`bridge serve
        /// --require-apns`, the container image).
        case never
        /// Always (`bridge serve --embedded-mock`, `load --target mock`).
        case always
    }

    /// The choice. A URL wins over credentials (they sign its provider tokens); credentials
    /// without one mean `apple`.
    static func decide(
        url: String?, trusting caFile: String? = nil, hasCredentials: Bool, apple: APNsEndpoint, mock: MockRule
    ) throws(APNsChoiceError) -> APNsChoice {
        if mock == .always { return .embeddedMock }
        if let url {
            do { return .server(try APNsEndpoint(url: url, trustedCertificates: caFile)) } catch {
                throw .badURL(error)
            }
        }
        if hasCredentials { return .apple(apple) }
        guard mock == .withoutCredentials else { throw .nothingToPushTo }
        return .embeddedMock
    }

    /// The endpoint, for a server or Apple; nil for the embedded mock (its port is known once it runs).
    var endpoint: APNsEndpoint? {
        switch self {
        case .server(let endpoint), .apple(let endpoint): endpoint
        case .embeddedMock: nil
        }
    }
}

/// Why no destination could be chosen.
enum APNsChoiceError: Error, CustomStringConvertible {
    /// The URL is not `https://host[:port]` or `http://host[:port]`.
    case badURL(EndpointError)
    /// Neither a URL nor credentials, and the embedded mock is not allowed.
    case nothingToPushTo

    var description: String {
        switch self {
        case .badURL(let error): "\(error)"
        case .nothingToPushTo: "no APNs credentials and no --apns-url"
        }
    }
}
