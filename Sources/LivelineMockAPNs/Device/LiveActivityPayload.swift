/// The Live Activity fields of an `aps` dictionary (APNS.md §2), read leniently.
///
/// APNs itself only checks that the body is JSON; what is wrong inside `aps` is the device's
/// problem, so malformed fields become ``problems`` (would-not-render reasons) instead of errors.
struct LiveActivityPayload {
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
        if let loneSurrogate {
            problems.append("a \\u escape at byte \(loneSurrogate) is half a UTF-16 surrogate pair: the device's JSONDecoder refuses the whole payload (encode the character as UTF-8 or as a full pair)")
        }
        guard case .object(let root) = body, case .object(let aps)? = root["aps"] else {
            problems.append("the payload has no aps dictionary")
            return
        }
        for (key, value) in zip(aps.keys, aps.values) {
            // Dispatch on the length first; most keys then need a single comparison.
            switch key.utf8.count {
            case 5:
                if key == "event" {
                    if let text = value.stringValue, let event = Event(rawValue: text) {
                        self.event = event
                    } else {
                        problems.append("aps.event must be \"start\", \"update\" or \"end\"")
                    }
                } else if key == "alert" {
                    alert = value
                }
            case 9: if key == "timestamp" { timestamp = number(value, key) }
            case 10:
                if key == "stale-date" {
                    staleDate = number(value, key)
                } else if key == "attributes" {
                    if case .object = value { attributes = value } else { problems.append("aps.attributes must be an object") }
                }
            case 13:
                if key == "content-state" {
                    if case .object = value { contentState = value } else { problems.append("aps.content-state must be an object") }
                }
            case 14: if key == "dismissal-date" { dismissalDate = number(value, key) }
            case 15:
                if key == "relevance-score" {
                    relevanceScore = number(value, key)
                } else if key == "attributes-type" {
                    if let text = value.stringValue { attributesType = text } else { problems.append("aps.attributes-type must be a string") }
                }
            case 16: if key == "input-push-token" { inputPushToken = value == .int(1) || value == .bool(true) }
            case 18:
                if key == "input-push-channel" {
                    if let text = value.stringValue { inputPushChannel = text } else { problems.append("aps.input-push-channel must be a base64 string") }
                }
            default: break
            }
        }
        if event == nil, !problems.contains(where: { $0.hasPrefix("aps.event") }) {
            problems.append("aps.event is missing")
        }
        if timestamp == nil, !problems.contains(where: { $0.hasPrefix("aps.timestamp") }) {
            problems.append("aps.timestamp is missing")
        }
    }

    private mutating func number(_ value: JSONValue, _ key: String) -> Double? {
        if let number = value.numberValue { return number }
        problems.append("aps.\(key) must be a number of UNIX seconds")
        return nil
    }
}
