import Hummingbird
import HTTPTypes
import Liveline

/// A request the bridge refuses, answered as `{"error": "<code>", "reason": "<sentence>"}`.
///
/// The code is short and stable, for programs (`bad-signature`, `unknown-source`); the reason
/// says what was wrong in words the sender's developer can act on. Neither ever holds a
/// secret, a token or the request's body.
public struct BridgeHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status of the answer.
    public var status: HTTPResponse.Status
    /// A short, stable code such as `bad-signature`.
    public var code: String
    /// One sentence a developer can act on.
    public var reason: String
    /// Headers the answer must carry, such as `WWW-Authenticate`.
    public var headers: HTTPFields

    /// An error answered with `status`, `code` and `reason`, and `headers` besides.
    public init(_ status: HTTPResponse.Status, code: String, reason: String, headers: HTTPFields = HTTPFields()) {
        self.status = status
        self.code = code
        self.reason = reason
        self.headers = headers
    }

    public var description: String { "\(status.code) \(code): \(reason)" }

    /// The JSON answer.
    public var response: Response {
        var answer = JSONAnswer.make(status, ["error": .string(code), "reason": .string(reason)])
        answer.headers.append(contentsOf: headers)
        return answer
    }

    /// The answer's JSON body alone, for answers written below Hummingbird
    /// (`HTTPFramingErrorAnswer`).
    var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.object(StateObject([("error", .string(code)), ("reason", .string(reason))]))
        writer.raw(UInt8(ascii: "\n"))
        return writer.bytes
    }
}

extension BridgeHTTPError {
    /// A verifier's refusal, with its own status (400 or 401) and reason.
    init(_ error: WebhookVerificationError) {
        let code =
            switch error {
            case .missingHeader: "missing-header"
            case .malformedHeader: "malformed-header"
            case .signatureMismatch: "bad-signature"
            case .timestampTooOld, .timestampTooNew: "stale-timestamp"
            case .wrongCredentials: "bad-credentials"
            case .missingCredentials: "missing-credentials"
            }
        self.init(error.status, code: code, reason: error.reason)
    }

    /// The mapper's refusal: 400 for a body that is not JSON (or not UTF-8), 413 for one past the
    /// bridge's `body-keys` or `body-depth`, 422 for JSON its rules cannot read.
    init(_ error: EventMappingError) {
        switch error {
        case .bodyNotJSON: self.init(.badRequest, code: "bad-json", reason: error.reason)
        case .bodyOverLimit: self.init(.contentTooLarge, code: "too-complex", reason: error.reason)
        case .blankEventID: self.init(.unprocessableContent, code: "blank-event-id", reason: error.reason)
        case .badActivityKey: self.init(.unprocessableContent, code: "bad-activity-key", reason: error.reason)
        default: self.init(.unprocessableContent, code: "unmappable", reason: error.reason)
        }
    }

    static func tooLarge(limit: Int) -> BridgeHTTPError {
        BridgeHTTPError(
            .contentTooLarge, code: "too-large", reason: "the body is larger than this bridge's limit of \(limit) bytes"
        )
    }

    /// Over the source's rate limit: `429` with `Retry-After` in whole seconds.
    static func rateLimited(source: String, limit: RateLimit, retryAfter: Int) -> BridgeHTTPError {
        BridgeHTTPError(
            .tooManyRequests, code: "rate-limited",
            reason: "source '\(source)' is limited to \(limit); send this webhook again in \(retryAfter) s",
            headers: [.retryAfter: String(retryAfter)])
    }

    static func notFound(_ reason: String) -> BridgeHTTPError {
        BridgeHTTPError(.notFound, code: "not-found", reason: reason)
    }
}
