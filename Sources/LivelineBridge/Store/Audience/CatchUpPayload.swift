import Liveline

/// What a follower who joined mid-story is sent: the key's newest push, without its `alert`.
///
/// The alert belongs to the event that caused the push ("GOAL!"), which happened before the
/// device followed; shown minutes later it would be news that is not news. The content-state,
/// `timestamp`, `stale-date`, `dismissal-date` and `relevance-score` are the current state and
/// stay, so the activity shows the story as it is now, silently (an update or end without an
/// alert is a valid Live Activity push; see docs/apns.md §2). A start keeps its alert: a start push
/// without one is dropped by the device.
enum CatchUpPayload {
    /// `payload` without `aps.alert` (the same bytes when it has none); a payload that is not
    /// the bridge's own `{"aps":{…}}` is a corrupt row.
    static func withoutAlert(_ payload: [UInt8]) throws(SQLRowError) -> [UInt8] {
        let value: StateValue
        do {
            value = try JSONParser.parse(payload)
        } catch {
            throw SQLRowError("a fan-out's stored payload is not JSON: \(error)")
        }
        guard case .object(var root) = value, case .object(var aps)? = root["aps"] else {
            throw SQLRowError("a fan-out's stored payload has no aps object")
        }
        guard aps["alert"] != nil else { return payload }
        aps["alert"] = nil
        root["aps"] = .object(aps)
        var writer = JSONWriter(capacity: payload.count)
        writer.object(root)
        return writer.bytes
    }
}
