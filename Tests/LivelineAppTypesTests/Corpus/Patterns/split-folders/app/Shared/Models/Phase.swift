extension MatchAttributes {
    public enum Phase: String, Codable, Hashable, Sendable {
        case preMatch = "pre-match"
        case live
        case fullTime = "full-time"
    }

    public struct Scorer: Codable, Hashable {
        public var name: String
        public var minute: Int
    }
}
