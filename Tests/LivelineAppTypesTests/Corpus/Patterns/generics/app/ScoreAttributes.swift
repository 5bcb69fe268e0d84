import ActivityKit

/// A wrapper the app uses for every value it shows with a label.
struct Labeled<Value: Codable & Hashable>: Codable, Hashable {
    var label: String
    var value: Value
}

struct ScoreAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var home: Labeled<Int>
        var clock: Labeled<Phase>
    }

    enum Phase: String, Codable, Hashable { case first, second, extra }
}
