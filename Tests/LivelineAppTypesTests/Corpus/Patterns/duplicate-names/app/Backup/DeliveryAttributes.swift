import ActivityKit

// An old copy, kept when the widget was rewritten.
struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var status: String
        var eta: String
    }
}
