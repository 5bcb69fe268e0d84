/// What a start push adds: the attributes and what the started activity does next.
public struct StartContent: Sendable {
    /// The Swift `ActivityAttributes` type name (`attributes-type` in the payload).
    public var attributesType: String
    /// The static attributes the activity starts with.
    public var attributes: StateObject
    /// How the started activity gets its update token or channel.
    public var input: StartSpec

    /// Start content with every part given.
    public init(attributesType: String, attributes: StateObject, input: StartSpec) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.input = input
    }
}

/// Writes the exact `{"aps":{…}}` bytes of a Live Activity push.
///
/// Keys use Apple's spellings and always come in the same order, so payloads are stable and
/// byte-comparable: `timestamp`, `event`, `content-state`, then for a start `attributes-type`,
/// `attributes` and `input-push-token` / `input-push-channel`, then `stale-date`,
/// `dismissal-date`, `relevance-score` and `alert`. Content-state keys are written exactly as
/// the scenario has them, and `Date` fields as reference-date seconds (see ``ReferenceDate``).
/// No `JSONSerialization`, no dictionaries: bytes go straight into the caller's ``JSONWriter``.
public enum APSEncoder {
    /// Appends the payload to `writer`. `encodedKeys` are the content-state's keys, pre-encoded.
    public static func encode(
        into writer: inout JSONWriter,
        event: PushEvent,
        timestamp: Int64,
        state: StateObject,
        encodedKeys: EncodedKeys,
        staleDate: Int64?,
        dismissalDate: Int64?,
        relevance: Double?,
        alert: Alert<String>?,
        start: StartContent?
    ) {
        writer.raw(#"{"aps":{"timestamp":"#)
        writer.int(timestamp)
        switch event {
        case .start: writer.raw(#","event":"start","content-state":"#)
        case .update: writer.raw(#","event":"update","content-state":"#)
        case .end: writer.raw(#","event":"end","content-state":"#)
        }
        writer.object(state, encodedKeys: encodedKeys)
        if let start {
            writer.raw(#","attributes-type":"#)
            writer.string(start.attributesType)
            writer.raw(#","attributes":"#)
            writer.object(start.attributes)
            switch start.input {
            case .plain: break
            case .inputPushToken: writer.raw(#","input-push-token":1"#)
            case .inputPushChannel(let channel):
                writer.raw(#","input-push-channel":"#)
                writer.string(channel)
            }
        }
        if let staleDate {
            writer.raw(#","stale-date":"#)
            writer.int(staleDate)
        }
        if let dismissalDate {
            writer.raw(#","dismissal-date":"#)
            writer.int(dismissalDate)
        }
        if let relevance {
            writer.raw(#","relevance-score":"#)
            writer.number(relevance)
        }
        if let alert {
            writer.raw(#","alert":"#)
            encode(alert, into: &writer)
        }
        writer.raw("}}")
    }

    static func encode(_ alert: Alert<String>, into writer: inout JSONWriter) {
        writer.raw(UInt8(ascii: "{"))
        var first = true
        func separator(_ writer: inout JSONWriter) {
            if !first { writer.raw(UInt8(ascii: ",")) }
            first = false
        }
        if let title = alert.title {
            separator(&writer)
            writer.raw(#""title":"#)
            encode(title, into: &writer)
        }
        if let body = alert.body {
            separator(&writer)
            writer.raw(#""body":"#)
            encode(body, into: &writer)
        }
        if let sound = alert.sound {
            separator(&writer)
            writer.raw(#""sound":"#)
            writer.string(sound)
        }
        writer.raw(UInt8(ascii: "}"))
    }

    static func encode(_ text: Alert<String>.Text, into writer: inout JSONWriter) {
        switch text {
        case .plain(let string):
            writer.string(string)
        case .localized(let key, let args):
            writer.raw(#"{"loc-key":"#)
            writer.string(key)
            if !args.isEmpty {
                writer.raw(#","loc-args":["#)
                for i in args.indices {
                    if i > 0 { writer.raw(UInt8(ascii: ",")) }
                    writer.string(args[i])
                }
                writer.raw(UInt8(ascii: "]"))
            }
            writer.raw(UInt8(ascii: "}"))
        }
    }
}
