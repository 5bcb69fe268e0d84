import HTTPTypes

/// Why a webhook was refused, with the HTTP status to answer and a short reason.
///
/// The reason is safe to send back in the JSON body: it names headers and what was wrong with
/// them, never a secret, an expected signature or the request's own header values.
public enum WebhookVerificationError: Error, Sendable, Hashable {
    /// A header the scheme needs is absent (400).
    case missingHeader(String)
    /// A header is there but cannot be read (400); the second value says what was expected.
    case malformedHeader(String, expected: String)
    /// No presented signature matches the body with any configured secret or key (401).
    case signatureMismatch
    /// The signed timestamp is older than the tolerance allows: possibly a replay (401).
    case timestampTooOld
    /// The signed timestamp is further in the future than the tolerance allows (401).
    case timestampTooNew
    /// Shared-secret authentication (bearer, basic, a fixed header value) did not match (401).
    case wrongCredentials
    /// Shared-secret authentication found no credentials in this header (401, with a
    /// `WWW-Authenticate` challenge: RFC 9110 section 11.6.1).
    case missingCredentials(String)

    /// The status to answer with: 400 when the request is not shaped as the scheme requires,
    /// 401 when it is shaped right but not authentic or not fresh.
    public var status: HTTPResponse.Status {
        switch self {
        case .missingHeader, .malformedHeader: .badRequest
        case .signatureMismatch, .timestampTooOld, .timestampTooNew, .wrongCredentials, .missingCredentials:
            .unauthorized
        }
    }

    /// A short human-readable reason for the response body.
    public var reason: String {
        switch self {
        case .missingHeader(let name): "missing header \(name)"
        case .malformedHeader(let name, let expected): "malformed header \(name): expected \(expected)"
        case .signatureMismatch: "no signature matches the body"
        case .timestampTooOld: "timestamp is too old (outside the tolerance)"
        case .timestampTooNew: "timestamp is in the future (outside the tolerance)"
        case .wrongCredentials: "wrong credentials"
        case .missingCredentials(let name): "no credentials: the header \(name) is missing or empty"
        }
    }
}

/// A verifier's configuration cannot work (found when it is built, not per request).
///
/// Messages name the setting and never repeat a secret.
public struct WebhookConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the setting.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
