import ActivityKit
import Foundation

struct TripAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var fare: Decimal
        var window: ClosedRange<Date>
        var tallies: [String: Int]
        var stops: [Stop]
        var receipt: URL?
    }

    struct Stop: Codable, Hashable {
        var label: String
        var done: Bool
    }

    var tripID: UUID
}
