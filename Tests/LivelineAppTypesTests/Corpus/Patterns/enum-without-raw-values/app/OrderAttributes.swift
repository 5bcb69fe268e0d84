import ActivityKit

struct OrderAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var status: Status
    }

    enum Status: Codable, Hashable {
        case received, preparing, ready
    }

    var orderNumber: Int
}
