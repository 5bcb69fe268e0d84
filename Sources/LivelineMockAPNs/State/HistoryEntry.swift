import Liveline

/// One push in a token's ``PushHistory``, kept compactly: a ``AnsweredPush`` without what the
/// history's key already says, with its id as bits and its delivery as three small values in
/// the common case. About 100 bytes inline and no heap allocation for a push whose body was
/// dropped, against about 300 bytes and three allocations for the ``AnsweredPush``.
struct HistoryEntry {
    /// `apns-id` or `apns-request-id`: the bits of a canonical UUID, or the text as sent.
    enum ID {
        case uuid(high: UInt64, low: UInt64, uppercase: Bool)
        case text(String)
    }

    /// What the push did on the devices.
    enum Deliveries {
        /// APNs refused it.
        case none
        /// One delivery to the activity behind the history's own token, without reasons: the
        /// shape of almost every update.
        case toKey(outcome: DeviceOutcome, lifecycle: ActivityLifecycle, started: Bool)
        /// Anything else, as recorded.
        case recorded([DeviceDelivery])
    }

    var time: Millis
    var id: ID
    var kind: AnsweredPush.Kind
    var priority: UInt8
    var status: UInt16
    var reason: String?
    var deliveries: Deliveries
    var payload: String?
    var warnings: [String]
    var timestamp: Double?

    /// `record` as kept under `key` (a token, or `channel:ID` for a broadcast).
    init(_ record: AnsweredPush, key: String) {
        time = record.time
        if let uuid = UUIDText.parse(record.id) {
            id = .uuid(high: uuid.high, low: uuid.low, uppercase: uuid.uppercase)
        } else {
            id = .text(record.id)
        }
        kind = record.kind
        priority = UInt8(clamping: record.priority)
        status = UInt16(clamping: record.status)
        reason = record.reason
        if record.deliveries.isEmpty {
            deliveries = .none
        } else if record.deliveries.count == 1, let only = record.deliveries.first, only.reasons.isEmpty,
            only.activityID == key, only.updateToken == key
        {
            deliveries = .toKey(outcome: only.outcome, lifecycle: only.lifecycle, started: only.started)
        } else {
            deliveries = .recorded(record.deliveries)
        }
        payload = record.payload
        warnings = record.warnings
        timestamp = record.timestamp
    }

    /// The answered push again, with the token or channel taken from `key`.
    func record(key: String) -> AnsweredPush {
        let text: String =
            switch id {
            case .uuid(let high, let low, let uppercase): UUIDText.format(high: high, low: low, uppercase: uppercase)
            case .text(let text): text
            }
        let list: [DeviceDelivery] =
            switch deliveries {
            case .none: []
            case .toKey(let outcome, let lifecycle, let started):
                [
                    DeviceDelivery(
                        activityID: key, updateToken: key, outcome: outcome, reasons: [], lifecycle: lifecycle,
                        started: started)
                ]
            case .recorded(let list): list
            }
        let isBroadcast = kind == .broadcast
        return AnsweredPush(
            time: time, kind: kind, token: isBroadcast ? nil : key,
            channelID: isBroadcast ? String(key.dropFirst(Self.channelPrefix.count)) : nil, id: text,
            priority: Int(priority), status: Int(status), reason: reason, deliveries: list, payload: payload,
            warnings: warnings, timestamp: timestamp)
    }

    /// Broadcast histories are kept under `channel:` and the channel id.
    static let channelPrefix = "channel:"

    /// Whether the body is worth keeping once a newer push arrived: APNs refused it for what it
    /// said (400, 413), or a device did not render it. A body APNs took and every device showed,
    /// or one refused for reasons that are not in it (auth, rate, outage: 403, 410, 429, 5xx),
    /// tells nothing the newest body does not.
    var bodyExplainsSomething: Bool {
        switch deliveries {
        case .none: status == 400 || status == 413
        case .toKey(let outcome, _, _): outcome != .rendered
        case .recorded(let list): list.contains { $0.outcome != .rendered }
        }
    }
}
