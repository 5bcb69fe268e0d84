import Foundation
import Liveline

/// One message of the dashboard's event stream: everything the page draws, complete, so a page
/// that missed frames (or just connected) needs nothing else.
///
/// It is small whatever the number of activities: counts, the few activities drawn in full
/// (``DashboardConfiguration/shownActivities``), and the last pushes.
struct DashboardFrame: Encodable {
    /// The mock's clock, UNIX milliseconds; the page counts stale dates and dismissals from it.
    var now: Millis
    var query: String
    var total: Int
    var matched: Int
    var lifecycles: [String: Int]
    var outcomes: DeviceCounts
    var requests: Int
    var statuses: [String: Int]
    var reasons: [String: Int]
    /// Second starts on one push-to-start token shown beside the first
    /// (``MockAPNsStats/duplicateStarts``): phones with two Live Activities for one story.
    var duplicateStarts: Int
    var budgetPerHour: Int
    var activities: [DashboardActivity]
    /// The last pushes, newest last.
    var timeline: [DashboardPush]
    /// The last pushes APNs refused or the device did not render, newest last.
    var notable: [DashboardPush]
    /// The keys a sender fans out to many devices (``DashboardAudienceSource``), each with one
    /// of its devices; empty without a source.
    var audiences: [DashboardAudienceView] = []

    enum CodingKeys: String, CodingKey {
        case now, query, total, matched, lifecycles, outcomes, requests, statuses, reasons, activities, timeline,
            notable, audiences
        case budgetPerHour = "budget-per-hour"
        case duplicateStarts = "duplicate-starts"
    }

    /// `data: <json>\n\n`, one Server-Sent Event.
    func eventBytes() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var bytes = Array("event: frame\ndata: ".utf8)
        // The frame is made of strings, numbers and JSON values only; encoding cannot fail, and
        // if it ever did the page would keep the previous frame.
        bytes += (try? encoder.encode(self)).map(Array.init) ?? Array("{}".utf8)
        bytes += Array("\n\n".utf8)
        return bytes
    }
}

/// One audience as the page draws it: its counts and fan-out, and one follower's device drawn
/// in full as its sample (the others show the same story), instead of a card per device.
struct DashboardAudienceView: Encodable {
    var audience: DashboardAudience
    var sample: DashboardActivity?
}

/// One activity drawn in full: the device's view of it, its name and how to draw it.
struct DashboardActivity: Encodable {
    var name: String?
    var presentation: Presentation?
    /// The scenario's attributes, for an activity the device has none for (the app started it).
    var scenarioAttributes: JSONValue?
    var activity: ActivitySnapshot

    enum CodingKeys: String, CodingKey {
        case name, presentation, activity
        case scenarioAttributes = "scenario-attributes"
    }
}
