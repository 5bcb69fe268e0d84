import ActivityKit
import Foundation

struct TimerAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var ends Date
        var paused: Bool
    }

    var title: String
}
