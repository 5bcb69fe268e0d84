import Liveline

/// Keeps every push an engine decides, for a replay to compare.
struct PushCollector: PushSink {
    var pushes: [Push] = []
    var problems: [String] = []

    mutating func receive(_ push: Push, from activity: ActivityEngine) {
        pushes.append(push)
    }

    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        problems.append("a \(push.event.rawValue) push (\(push.reason)) was not sent: \(problem)")
    }
}
