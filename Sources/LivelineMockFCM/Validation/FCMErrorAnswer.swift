import LivelineCore

/// An error answer of FCM's HTTP v1 API, as FCM writes it: Google's `google.rpc.Status` with
/// FCM's `FcmError` detail (its `errorCode`) and, for a bad field, a `BadRequest` detail.
///
/// ```json
/// {"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND",
///   "details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}
/// ```
public struct FCMErrorAnswer: Error, Sendable, Hashable, CustomStringConvertible {
    /// A `BadRequest` field violation.
    public struct FieldViolation: Sendable, Hashable {
        public var field: String
        public var description: String
    }

    public var httpStatus: Int
    /// The canonical status: `INVALID_ARGUMENT`, `NOT_FOUND`, `UNAUTHENTICATED`…
    public var status: String
    public var message: String
    /// The `FcmError` detail's code, when FCM adds one.
    public var errorCode: String?
    public var fieldViolations: [FieldViolation]
    /// `Retry-After` seconds, for 429 and 503.
    public var retryAfter: Int?

    public init(
        httpStatus: Int, status: String, message: String, errorCode: String?,
        fieldViolations: [FieldViolation] = [], retryAfter: Int? = nil
    ) {
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
        self.errorCode = errorCode
        self.fieldViolations = fieldViolations
        self.retryAfter = retryAfter
    }

    public var description: String { "\(httpStatus) \(errorCode ?? status): \(message)" }

    /// The JSON body.
    public var body: [UInt8] {
        var writer = JSONWriter(capacity: 256 + message.utf8.count * 2)
        writer.raw(#"{"error":{"code":"#)
        writer.int(httpStatus)
        writer.raw(#","message":"#)
        writer.string(message)
        writer.raw(#","status":"#)
        writer.string(status)
        if errorCode != nil || !fieldViolations.isEmpty {
            writer.raw(#","details":["#)
            if let errorCode {
                writer.raw(#"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"#)
                writer.string(errorCode)
                writer.raw(UInt8(ascii: "}"))
                if !fieldViolations.isEmpty { writer.raw(UInt8(ascii: ",")) }
            }
            if !fieldViolations.isEmpty {
                writer.raw(#"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":["#)
                for (i, violation) in fieldViolations.enumerated() {
                    if i > 0 { writer.raw(UInt8(ascii: ",")) }
                    writer.raw(#"{"field":"#)
                    writer.string(violation.field)
                    writer.raw(#","description":"#)
                    writer.string(violation.description)
                    writer.raw(UInt8(ascii: "}"))
                }
                writer.raw("]}")
            }
            writer.raw(UInt8(ascii: "]"))
        }
        writer.raw("}}")
        return writer.bytes
    }

    // MARK: FCM's answers

    /// 400 for a field FCM cannot read, with the field named.
    public static func invalidField(_ field: String, _ description: String) -> FCMErrorAnswer {
        FCMErrorAnswer(
            httpStatus: 400, status: "INVALID_ARGUMENT", message: description, errorCode: nil,
            fieldViolations: [FieldViolation(field: field, description: description)])
    }

    /// 400 `INVALID_ARGUMENT` with FCM's code, for a message FCM refuses as a whole.
    public static func invalidArgument(
        _ message: String, field: String? = nil, description: String? = nil
    )
        -> FCMErrorAnswer
    {
        FCMErrorAnswer(
            httpStatus: 400, status: "INVALID_ARGUMENT", message: message, errorCode: "INVALID_ARGUMENT",
            fieldViolations: field.map { [FieldViolation(field: $0, description: description ?? message)] } ?? [])
    }

    /// 400: the registration token (or installation id) is not one FCM issued.
    public static func invalidToken(field: String) -> FCMErrorAnswer {
        invalidArgument("The registration token is not a valid FCM registration token", field: field)
    }

    /// 404 `UNREGISTERED`: the app instance is gone.
    public static let unregistered = FCMErrorAnswer(
        httpStatus: 404, status: "NOT_FOUND", message: "Requested entity was not found.", errorCode: "UNREGISTERED")

    /// 403 `SENDER_ID_MISMATCH`: the token belongs to another project.
    public static let senderIDMismatch = FCMErrorAnswer(
        httpStatus: 403, status: "PERMISSION_DENIED", message: "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH")

    /// 401 `THIRD_PARTY_AUTH_ERROR`: FCM could not use the project's APNs key or web push
    /// credentials (a message that also goes to iOS or the web).
    public static let thirdPartyAuthError = FCMErrorAnswer(
        httpStatus: 401, status: "UNAUTHENTICATED", message: "Auth error from APNS or Web Push Service",
        errorCode: "THIRD_PARTY_AUTH_ERROR")

    /// 401: no access token, or one that is expired or unknown.
    public static let unauthenticated = FCMErrorAnswer(
        httpStatus: 401, status: "UNAUTHENTICATED",
        message:
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
        errorCode: nil)

    /// 403: the access token may not send for this project.
    public static func permissionDenied(project: String) -> FCMErrorAnswer {
        FCMErrorAnswer(
            httpStatus: 403, status: "PERMISSION_DENIED",
            message:
                "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
            errorCode: nil)
    }

    /// 404 for a path or method the API does not have.
    public static func notFound(_ message: String) -> FCMErrorAnswer {
        FCMErrorAnswer(httpStatus: 404, status: "NOT_FOUND", message: message, errorCode: nil)
    }

    /// 429 `QUOTA_EXCEEDED`, with `Retry-After`.
    public static func quotaExceeded(retryAfter: Int) -> FCMErrorAnswer {
        FCMErrorAnswer(
            httpStatus: 429, status: "RESOURCE_EXHAUSTED", message: "Quota exceeded for quota metric 'Messages'.",
            errorCode: "QUOTA_EXCEEDED", retryAfter: retryAfter)
    }

    /// 503 `UNAVAILABLE`, with `Retry-After`.
    public static func unavailable(retryAfter: Int) -> FCMErrorAnswer {
        FCMErrorAnswer(
            httpStatus: 503, status: "UNAVAILABLE", message: "The service is currently unavailable.",
            errorCode: "UNAVAILABLE", retryAfter: retryAfter)
    }

    /// 500 `INTERNAL`.
    public static let `internal` = FCMErrorAnswer(
        httpStatus: 500, status: "INTERNAL", message: "Internal error encountered.", errorCode: "INTERNAL")
}
