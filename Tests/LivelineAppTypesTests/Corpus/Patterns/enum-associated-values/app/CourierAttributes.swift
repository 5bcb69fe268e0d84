import ActivityKit
import Foundation

struct CourierAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var step: Step
    }

    enum Step: Codable, Hashable {
        case waiting
        case assigned(name: String, UInt8)
        case delivered(at: Date, signedBy: String?)
    }
}
