/// The Live Activity fields of an `aps` dictionary (docs/apns.md §2), read leniently.
///
/// APNs itself only checks that the body is JSON; what is wrong inside `aps` is the device's
/// problem, so malformed fields become ``problems`` (would-not-render reasons) instead of errors.
///
/// Built either from a parsed body (``init(body:loneSurrogate:)``: broadcasts, stored channel
/// messages) or member by member while a device push's body is read (``PushBodyReader``), which
/// never builds the body's outer objects. Both go through ``take(member:_:)`` and ``finish(apsIsObject:loneSurrogate:)``,
/// so they read a body the same way.
struct LiveActivityPayload: Equatable {
    enum Event: String {
        case start, update, end
    }

    var event: Event?
    /// `timestamp`, UNIX seconds.
    var timestamp: Double?
    var contentState: JSONValue?
    /// `stale-date`, UNIX seconds.
    var staleDate: Double?
    /// `dismissal-date`, UNIX seconds.
    var dismissalDate: Double?
    var relevanceScore: Double?
    var alert: JSONValue?
    var attributesType: String?
    var attributes: JSONValue?
    var inputPushToken = false
    var inputPushChannel: String?
    /// What is malformed; any entry means the device drops the push.
    var problems: [String] = []

    /// `loneSurrogate` is the byte offset of a lone surrogate escape in the body, if any: JSON
    /// allows it, Foundation's `JSONDecoder` refuses the whole payload, so the device drops it.
    init(body: JSONValue, loneSurrogate: Int? = nil) {
        // A lookup finds a repeated key's first value: the first `aps` is the one read.
        guard case .object(let root) = body, case .object(let aps)? = root["aps"] else {
            finish(apsIsObject: false, loneSurrogate: loneSurrogate)
            return
        }
        for (key, value) in zip(aps.keys, aps.values) {
            var key = key
            key.withUTF8 { take(member: UnsafeRawBufferPointer($0), value) }
        }
        finish(apsIsObject: true, loneSurrogate: loneSurrogate)
    }

    /// A payload to fill with ``take(member:_:)``, then ``finish(apsIsObject:loneSurrogate:)``.
    init() {}

    /// Reads one member of `aps`, its key as UTF-8 bytes. Members are taken in the order they
    /// were written; a repeated key is read again.
    mutating func take(member key: UnsafeRawBufferPointer, _ value: JSONValue) {
        // Dispatch on the length first; most keys then need a single comparison.
        switch key.count {
        case 5:
            if Self.equal(key, "event") {
                if let text = value.stringValue, let event = Event(rawValue: text) {
                    self.event = event
                } else {
                    problems.append("aps.event must be \"start\", \"update\" or \"end\"")
                }
            } else if Self.equal(key, "alert") {
                alert = value
            }
        case 9: if Self.equal(key, "timestamp") { timestamp = number(value, "timestamp") }
        case 10:
            if Self.equal(key, "stale-date") {
                staleDate = number(value, "stale-date")
            } else if Self.equal(key, "attributes") {
                if case .object = value {
                    attributes = value
                } else {
                    problems.append("aps.attributes must be an object")
                }
            }
        case 13:
            if Self.equal(key, "content-state") {
                if case .object = value {
                    contentState = value
                } else {
                    problems.append("aps.content-state must be an object")
                }
            }
        case 14: if Self.equal(key, "dismissal-date") { dismissalDate = number(value, "dismissal-date") }
        case 15:
            if Self.equal(key, "relevance-score") {
                relevanceScore = number(value, "relevance-score")
            } else if Self.equal(key, "attributes-type") {
                if let text = value.stringValue {
                    attributesType = text
                } else {
                    problems.append("aps.attributes-type must be a string")
                }
            }
        case 16: if Self.equal(key, "input-push-token") { inputPushToken = value == .int(1) || value == .bool(true) }
        case 18:
            if Self.equal(key, "input-push-channel") {
                if let text = value.stringValue {
                    inputPushChannel = text
                } else {
                    problems.append("aps.input-push-channel must be a base64 string")
                }
            }
        default: break
        }
    }

    /// Ends reading: a body without an `aps` object has only that problem (and the lone
    /// surrogate's, first); otherwise `event` and `timestamp` must have been there.
    mutating func finish(apsIsObject: Bool, loneSurrogate: Int?) {
        if !apsIsObject {
            problems.append("the payload has no aps dictionary")
        } else {
            if event == nil, !problems.contains(where: { $0.hasPrefix("aps.event") }) {
                problems.append("aps.event is missing")
            }
            if timestamp == nil, !problems.contains(where: { $0.hasPrefix("aps.timestamp") }) {
                problems.append("aps.timestamp is missing")
            }
        }
        if let loneSurrogate {
            problems.insert(
                "a \\u escape at byte \(loneSurrogate) is half a UTF-16 surrogate pair: the device's JSONDecoder refuses the whole payload (encode the character as UTF-8 or as a full pair)",
                at: 0)
        }
    }

    private mutating func number(_ value: JSONValue, _ key: String) -> Double? {
        if let number = value.numberValue { return number }
        problems.append("aps.\(key) must be a number of UNIX seconds")
        return nil
    }

    /// Whether `bytes` are exactly `literal`.
    static func equal(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { literal in
            guard literal.count == bytes.count else { return false }
            for index in 0..<bytes.count where bytes[index] != literal[index] { return false }
            return true
        }
    }
}
