import ActivityKit
import Foundation

struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var status: String
        var minutesLeft: Int
        var eta: Date
    }

    var orderNumber: Int
}
