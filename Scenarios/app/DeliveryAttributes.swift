// The Live Activity of a food delivery, as an app declares it.
// Scenarios/delivery.yaml plays a story that decodes into these types:
//   swift run liveline validate --app Scenarios/app Scenarios/delivery.yaml

import ActivityKit
import Foundation

struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        enum Status: String, Codable {
            case placed, preparing, arriving, delivered
            case onTheWay = "on-the-way"
            /// A cancelled order ends the activity showing this, not the last good state.
            case cancelled
        }

        var status: Status
        var message: String
        /// Decoded from seconds since 2001 (a default JSONDecoder), which `!date` sends.
        var eta: Date
        var window: ClosedRange<Date>
        var minutesLeft: Int
        var progress: Double
        var courierName: String?
    }

    var orderNumber: Int
    var restaurant: String
    var itemCount: Int
    var deliveryAddress: String
}
