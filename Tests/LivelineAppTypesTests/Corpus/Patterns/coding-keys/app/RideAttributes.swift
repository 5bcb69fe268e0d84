import ActivityKit

struct RideAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var driverName: String
        var etaMinutes: Int

        enum CodingKeys: String, CodingKey {
            case driverName = "driver_name"
            case etaMinutes = "eta_minutes"
        }
    }

    var rideID: String
}
