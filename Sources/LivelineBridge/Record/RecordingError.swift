/// Why a recording cannot be made, said so the user can fix the request.
public enum RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing matched: no such keys, or no events of the source in the time range.
    case nothingSelected(String)
    /// The activity has no event a dispatch step took up (it is not registered yet, or its
    /// events still wait for a token).
    case nothingDispatched(activityKey: String)
    /// No configured source has the activity's story.
    case noStory(activityKey: String, source: String)
    /// The store could not be read.
    case store(String)
    /// The written scenario does not load: a fault of the recorder, with the loader's errors.
    case invalidScenario([String])

    public var description: String {
        switch self {
        case .nothingSelected(let what): "nothing to record: \(what)"
        case .nothingDispatched(let key):
            "'\(key)' has no event the bridge applied yet (is it registered, with a token?)"
        case .noStory(let key, let source): "'\(key)' follows '\(source)', which no configured source is"
        case .store(let cause): "the store could not be read: \(cause)"
        case .invalidScenario(let errors):
            "the recording does not load (a fault of Liveline; please report it):\n\(errors.joined(separator: "\n"))"
        }
    }
}
