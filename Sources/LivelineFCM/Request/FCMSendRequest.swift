import LivelineCore
import NIOCore

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
/// seconds with an `s`. The message's fields are written once, keys in a fixed order, when the
/// request is made (or come already written in ``FCMMessageFields``, shared by every phone a
/// decision goes to); ``body`` only puts the target before them.
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
    /// `"data":{…},"android":{…}`, as ``writeMessageFields(data:priority:ttlSeconds:collapseKey:into:)``
    /// writes them: rendered once, and for a decision's many phones the same bytes.
    let fieldBytes: [UInt8]

    public init(
        project: String, target: FCMTarget, data: FCMData, priority: FCMPriority, ttlSeconds: Int64,
        collapseKey: String?, validateOnly: Bool = false
    ) throws(FCMRequestError) {
        try self.init(
            project: project, target: target, data: data, priority: priority, ttlSeconds: ttlSeconds,
            collapseKey: collapseKey, validateOnly: validateOnly,
            fieldBytes: Self.messageFieldBytes(
                data: data, priority: priority, ttlSeconds: ttlSeconds, collapseKey: collapseKey))
    }

    /// A request whose fields are already written (`fieldBytes`, the same fields rendered).
    init(
        project: String, target: FCMTarget, data: FCMData, priority: FCMPriority, ttlSeconds: Int64,
        collapseKey: String?, validateOnly: Bool, fieldBytes: [UInt8]
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
        self.fieldBytes = fieldBytes
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
        Self.headers(accessToken: accessToken)
    }

    /// The headers of every request sent with `accessToken`.
    public static func headers(accessToken: String) -> [(name: String, value: String)] {
        [("authorization", "Bearer " + accessToken), ("content-type", contentType)]
    }

    /// The JSON body.
    public var body: [UInt8] {
        var writer = JSONWriter(capacity: bodyCapacity)
        writeBody(into: &writer)
        return writer.bytes
    }

    /// The JSON body in a buffer of its own, as the connection sends it: one allocation.
    public var bodyBuffer: ByteBuffer {
        var writer = JSONWriter(capacity: bodyCapacity)
        writeBody(into: &writer)
        return writer.withBytes { ByteBuffer(bytes: $0) }
    }

    private var bodyCapacity: Int { fieldBytes.count + target.value.utf8.count + 48 }

    private func writeBody(into writer: inout JSONWriter) {
        writer.raw(UInt8(ascii: "{"))
        if validateOnly { writer.raw(#""validate_only":true,"#) }
        writer.raw(#""message":{"#)
        writer.string(target.field)
        writer.raw(UInt8(ascii: ":"))
        writer.string(target.value)
        writer.raw(UInt8(ascii: ","))
        writer.raw(fieldBytes)
        writer.raw("}}")
    }

    /// `"data":{…},"android":{…}` for these fields.
    static func messageFieldBytes(
        data: FCMData, priority: FCMPriority, ttlSeconds: Int64, collapseKey: String?
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: data.byteCount + 128)
        writeMessageFields(
            data: data, priority: priority, ttlSeconds: ttlSeconds, collapseKey: collapseKey, into: &writer)
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
