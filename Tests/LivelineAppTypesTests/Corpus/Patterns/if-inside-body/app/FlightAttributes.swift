import ActivityKit

struct FlightAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var gate: String
        #if os(iOS)
        var boardingGroup: Int
        #endif
    }

    var flight: String
}
