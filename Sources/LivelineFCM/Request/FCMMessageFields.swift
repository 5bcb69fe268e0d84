import LivelineCore

/// An FCM message without its target, `{"data":{…},"android":{…}}`: what one engine decision
/// sends to every Android phone that follows an activity. A sender that keeps a decision for
/// later (the bridge's fan-outs, in its store) keeps these bytes, reads them back once, and
/// addresses each phone with ``FCMSendRequest/init(project:target:fields:)``: the fields are
/// written once, and every phone's request shares those bytes.
public struct FCMMessageFields: Sendable, Hashable {
    public let data: FCMData
    public let priority: FCMPriority
    public let ttlSeconds: Int64
    public let collapseKey: String?
    /// `"data":{…},"android":{…}`: the fields written, once.
    let written: [UInt8]

    /// The fields of `message`.
    public init(_ message: AndroidMessage) {
        self.init(
            data: message.data, priority: message.priority, ttlSeconds: message.ttlSeconds,
            collapseKey: message.collapseKey)
    }

    /// These fields.
    public init(data: FCMData, priority: FCMPriority, ttlSeconds: Int64, collapseKey: String?) {
        self.data = data
        self.priority = priority
        self.ttlSeconds = ttlSeconds
        self.collapseKey = collapseKey
        written = FCMSendRequest.messageFieldBytes(
            data: data, priority: priority, ttlSeconds: ttlSeconds, collapseKey: collapseKey)
    }

    /// The fields as ``bytes`` wrote them; throws ``FCMMessageFieldsError`` naming what is
    /// missing or of the wrong type.
    public init(parsing bytes: [UInt8]) throws(FCMMessageFieldsError) {
        let document: StateValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw FCMMessageFieldsError(problem: "not JSON: \(error)")
        }
        guard case .object(let message) = document, case .object(let data)? = message["data"],
            case .object(let android)? = message["android"]
        else { throw FCMMessageFieldsError(problem: "expected {\"data\":{…},\"android\":{…}}") }
        var entries: [(key: String, value: String)] = []
        for (key, value) in zip(data.keys, data.values) {
            guard case .string(let text) = value else {
                throw FCMMessageFieldsError(problem: "data value '\(key)' is not a string")
            }
            entries.append((key, text))
        }
        guard case .string(let priority)? = android["priority"], let level = FCMPriority(rawValue: priority) else {
            throw FCMMessageFieldsError(problem: "android.priority is not NORMAL or HIGH")
        }
        guard case .string(let ttl)? = android["ttl"], ttl.hasSuffix("s"), let seconds = Int64(ttl.dropLast()) else {
            throw FCMMessageFieldsError(problem: "android.ttl is not a duration in seconds such as \"300s\"")
        }
        let collapseKey: String?
        switch android["collapse_key"] {
        case nil, .null?: collapseKey = nil
        case .string(let key)?: collapseKey = key
        default: throw FCMMessageFieldsError(problem: "android.collapse_key is not a string")
        }
        self.init(data: FCMData(entries), priority: level, ttlSeconds: seconds, collapseKey: collapseKey)
    }

    /// `{"data":{…},"android":{…}}`, keys in a fixed order.
    public var bytes: [UInt8] { [UInt8(ascii: "{")] + written + [UInt8(ascii: "}")] }
}

/// Stored message fields that cannot be read back, with what is wrong.
public struct FCMMessageFieldsError: Error, Sendable, Hashable, CustomStringConvertible {
    public var problem: String

    public var description: String { "a stored FCM message cannot be read: \(problem)" }
}

extension FCMSendRequest {
    /// The request that sends `fields` to `target`.
    public init(project: String, target: FCMTarget, fields: FCMMessageFields) throws(FCMRequestError) {
        try self.init(
            project: project, target: target, data: fields.data, priority: fields.priority,
            ttlSeconds: fields.ttlSeconds, collapseKey: fields.collapseKey, validateOnly: false,
            fieldBytes: fields.written)
    }
}
