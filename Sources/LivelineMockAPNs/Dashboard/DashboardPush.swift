import Liveline

/// One push as the dashboard's timeline shows it: what was sent, what APNs answered, what the
/// device did and, when the sender said, why the push was sent (the plan's reason).
struct DashboardPush: Sendable, Encodable {
    var sequence: UInt64
    /// UNIX milliseconds on the mock's clock.
    var time: Millis
    var target: String
    /// The activity's name, when the scenario is known.
    var name: String?
    var activityID: String?
    var priority: Int
    var event: String?
    /// The HTTP status APNs answered, and its reason for errors.
    var status: Int
    var apnsReason: String?
    /// Why the sender sent it (`beat goal-home-1 · budget 11/12`), when known.
    var planReason: String?
    /// What the device did: `rendered`, `dropped-old`, `would-not-render`, …; nil when refused.
    var outcome: String?
    var outcomeReasons: [String]
    /// For a second start on one push-to-start token: the activity an earlier start made, still
    /// shown beside the one this push made.
    var duplicateOf: String?
    var lifecycle: String?
    var alertTitle: String?
    var alertBody: String?
    /// The apns-id (or apns-request-id), which annotations refer to.
    var id: String

    init(_ entry: DashboardFeed.Entry, name: String?) {
        let record = entry.record
        sequence = entry.sequence
        time = record.time
        target = record.token ?? record.channelID.map { "channel:" + $0 } ?? "?"
        self.name = name
        priority = record.priority
        status = record.status
        apnsReason = record.reason
        id = record.id
        let delivery =
            record.deliveries.first { $0.duplicateOf != nil } ?? record.deliveries.first { $0.outcome != .rendered }
            ?? record.deliveries.first
        duplicateOf = delivery?.duplicateOf
        activityID = delivery?.activityID
        outcome = delivery?.outcome.rawValue
        outcomeReasons = delivery?.reasons ?? []
        lifecycle = delivery?.lifecycle.rawValue
        if record.deliveries.count > 1 {
            let rendered = record.deliveries.filter { $0.outcome == .rendered }.count
            outcomeReasons.insert("\(rendered) of \(record.deliveries.count) subscribed activities rendered it", at: 0)
        }
        if let payload = record.payload, let body = try? JSONValue(parsing: payload), case .object(let root) = body,
            case .object(let aps)? = root["aps"]
        {
            event = aps["event"]?.stringValue
            switch aps["alert"] {
            case .string(let text)?:
                alertTitle = text
            case .object(let alert)?:
                alertTitle = alert["title"]?.stringValue ?? alert["title-loc-key"]?.stringValue
                alertBody = alert["body"]?.stringValue ?? alert["loc-key"]?.stringValue
            default:
                break
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case sequence, time, target, name, priority, event, status, outcome, lifecycle, id
        case activityID = "activity-id"
        case apnsReason = "apns-reason"
        case planReason = "plan-reason"
        case outcomeReasons = "outcome-reasons"
        case duplicateOf = "duplicate-of"
        case alertTitle = "alert-title"
        case alertBody = "alert-body"
    }
}
