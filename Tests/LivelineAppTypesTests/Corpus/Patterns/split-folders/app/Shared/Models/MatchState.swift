import Foundation

extension MatchAttributes {
    public struct ContentState: Codable & Hashable {
        public var minute: Int
        public var phase: Phase
        public var scorers: [Scorer]
    }
}
