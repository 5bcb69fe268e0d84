import LivelineCore

/// One `messages:send` request of FCM's HTTP v1 API: the path, the headers and the exact JSON body.
///
/// ```text
/// POST /v1/projects/{project}/messages:send
/// authorization: Bearer <access token>
/// content-type: application/json; charset=UTF-8
///
/// {"message":{"token":"…","data":{…},"android":{"priority":"HIGH","ttl":"300s","collapse_key":"…"}}}
/// ```
///
/// `data` values are all strings (FCM refuses anything else); `android.ttl` is a duration in
/// seconds with an `s`. The body is written straight into a ``JSONWriter``, keys in a fixed order.
public struct FCMSendRequest: Sendable, Hashable {
    public static let host = "fcm.googleapis.com"
    public static let contentType = "application/json; charset=UTF-8"

    public let project: String
    public let target: FCMTarget
    public let data: FCMData
    public let priority: FCMPriority
    public let ttlSeconds: Int64
    public let collapseKey: String?
    /// `validate_only`: FCM checks the message and sends nothing.
    public let validateOnly: Bool

    public init(
        project: String, target: FCMTarget, data: FCMData, priority: FCMPriority, ttlSeconds: Int64,
        collapseKey: String?, validateOnly: Bool = false
    ) throws(FCMRequestError) {
        guard Self.isProjectID(project) else { throw .badProject(project) }
        // Byte by byte: a token is ASCII, and Character's Unicode properties cost more than the send.
        guard !target.value.isEmpty,
            !target.value.utf8.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 >= 0x7F })
        else {
            throw .badTarget(target.field)
        }
        self.project = project
        self.target = target
        self.data = data
        self.priority = priority
        self.ttlSeconds = ttlSeconds
        self.collapseKey = collapseKey
        self.validateOnly = validateOnly
    }

    /// The request for one Android Live Update message.
    public init(
        project: String, target: FCMTarget, message: AndroidMessage, validateOnly: Bool = false
    )
        throws(FCMRequestError)
    {
        try self.init(
            project: project, target: target, data: message.data, priority: message.priority,
            ttlSeconds: message.ttlSeconds, collapseKey: message.collapseKey, validateOnly: validateOnly)
    }

    /// `/v1/projects/{project}/messages:send`
    public var path: String { Self.path(project: project) }

    public static func path(project: String) -> String { "/v1/projects/\(project)/messages:send" }

    /// The headers besides the HTTP/2 pseudo-headers.
    public func headers(accessToken: String) -> [(name: String, value: String)] {
        [("authorization", "Bearer " + accessToken), ("content-type", Self.contentType)]
    }

    /// The JSON body.
    public var body: [UInt8] {
        var writer = JSONWriter(capacity: data.byteCount + 256)
        writer.raw(UInt8(ascii: "{"))
        if validateOnly { writer.raw(#""validate_only":true,"#) }
        writer.raw(#""message":{"#)
        writer.string(target.field)
        writer.raw(UInt8(ascii: ":"))
        writer.string(target.value)
        writer.raw(UInt8(ascii: ","))
        Self.writeMessageFields(
            data: data, priority: priority, ttlSeconds: ttlSeconds, collapseKey: collapseKey, into: &writer)
        writer.raw("}}")
        return writer.bytes
    }

    /// The `message` object without its target, `{"data":{…},"android":{…}}`: what a plan shows.
    public static func message(_ message: AndroidMessage) -> [UInt8] {
        FCMMessageFields(message).bytes
    }

    /// `"data":{…},"android":{"priority":…,"ttl":…,"collapse_key":…}`
    static func writeMessageFields(
        data: FCMData, priority: FCMPriority, ttlSeconds: Int64, collapseKey: String?, into writer: inout JSONWriter
    ) {
        writer.raw(#""data":"#)
        data.write(into: &writer)
        writer.raw(#","android":{"priority":"#)
        writer.string(priority.rawValue)
        writer.raw(#","ttl":"#)
        writer.string("\(ttlSeconds)s")
        if let collapseKey {
            writer.raw(#","collapse_key":"#)
            writer.string(collapseKey)
        }
        writer.raw(UInt8(ascii: "}"))
    }

    /// A project id as the URL carries it: letters, digits, `-`, `.` and `:` (old domain-scoped ids).
    public static func isProjectID(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-"
                    || $0 == "." || $0 == ":"
            }
    }
}

/// A request Liveline will not send, with what to fix.
public enum FCMRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    case badProject(String)
    case badTarget(String)

    public var description: String {
        switch self {
        case .badProject(let project):
            "'\(project)' is not a Firebase project id (letters, digits and '-'; the project_id of the service account)"
        case .badTarget(let field): "the message's \(field) is empty or has spaces or quotes"
        }
    }
}
