import ActivityKit
import CoreGraphics
import Foundation

struct WorkoutAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var elapsed: TimeInterval
        var effort: Float16
        var scale: CGFloat
        var position: CGPoint
        var floor: Int16
        var heartRate: UInt16
    }

    var kind: String
}
