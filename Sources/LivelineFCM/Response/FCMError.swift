import Foundation
import LivelineCore

/// An error FCM answered, parsed from its body (Google's `google.rpc.Status`):
///
/// ```json
/// {"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND",
///   "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}
/// ```
///
/// Reading never fails: a body that is not Google's shape keeps the HTTP status and the text,
/// so the cause reaches the user whatever a proxy in between answered.
public struct FCMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One `google.rpc.BadRequest` field violation: which field, and why.
    public struct FieldViolation: Sendable, Hashable {
        public var field: String
        public var description: String
    }

    /// The HTTP status.
    public var httpStatus: Int
    /// The canonical status, `INVALID_ARGUMENT`, `NOT_FOUND`, `UNAUTHENTICATED`…
    public var status: String?
    public var message: String
    /// FCM's own code, from the `FcmError` detail, when the body has one.
    public var errorCode: FCMErrorCode?
    public var fieldViolations: [FieldViolation]
    /// `Retry-After`, in seconds from the answer, when FCM sent one.
    public var retryAfter: Int64?

    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    public static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    public init(
        httpStatus: Int, status: String?, message: String, errorCode: FCMErrorCode?,
        fieldViolations: [FieldViolation] = [], retryAfter: Int64? = nil
    ) {
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
        self.errorCode = errorCode
        self.fieldViolations = fieldViolations
        self.retryAfter = retryAfter
    }

    /// Reads an error answer: its status, body and `Retry-After` header (seconds or an HTTP date,
    /// taken relative to `now`, UNIX seconds).
    public init(httpStatus: Int, body: [UInt8], retryAfter: String? = nil, now: Int64 = 0) {
        self.init(
            httpStatus: httpStatus, status: nil, message: "", errorCode: nil,
            retryAfter: retryAfter.flatMap { Self.retryAfterSeconds($0, now: now) })
        guard case .object(let root)? = try? JSONParser.parse(body), case .object(let error)? = root["error"] else {
            let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            message = text.isEmpty ? "no body" : text
            return
        }
        if case .string(let status)? = error["status"] { self.status = status }
        if case .string(let message)? = error["message"] { self.message = message }
        guard case .array(let details)? = error["details"] else { return }
        for case .object(let detail) in details {
            guard case .string(let type)? = detail["@type"] else { continue }
            if type == Self.fcmErrorType, case .string(let code)? = detail["errorCode"] {
                errorCode = FCMErrorCode(rawValue: code)
            } else if type == Self.badRequestType, case .array(let violations)? = detail["fieldViolations"] {
                for case .object(let violation) in violations {
                    guard case .string(let field)? = violation["field"] else { continue }
                    var why = ""
                    if case .string(let text)? = violation["description"] { why = text }
                    fieldViolations.append(FieldViolation(field: field, description: why))
                }
            }
        }
    }

    /// Whether the error is about the message's target: the token or installation id is not valid.
    public var concernsTarget: Bool {
        if fieldViolations.contains(where: { $0.field == "message.token" || $0.field == "message.fid" }) {
            return true
        }
        let lowered = message.lowercased()
        return lowered.contains("registration token") || lowered.contains("installation id")
    }

    public var description: String {
        var parts = ["FCM \(httpStatus)"]
        if let errorCode { parts.append(errorCode.rawValue) } else if let status { parts.append(status) }
        var text = parts.joined(separator: " ") + ": " + message
        if !fieldViolations.isEmpty {
            text += " (" + fieldViolations.map { "\($0.field): \($0.description)" }.joined(separator: "; ") + ")"
        }
        if let retryAfter { text += ", retry after \(retryAfter)s" }
        return text
    }

    /// `Retry-After`: delta-seconds, or an IMF-fixdate (`Wed, 21 Oct 2026 07:28:00 GMT`) taken from `now`.
    static func retryAfterSeconds(_ text: String, now: Int64) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, Int64(date.timeIntervalSince1970) - now)
    }
}
