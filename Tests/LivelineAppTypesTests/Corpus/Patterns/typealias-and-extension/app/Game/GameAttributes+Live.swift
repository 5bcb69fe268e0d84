extension GameAttributes: LiveAttributes {
    struct ContentState: Codable, Hashable {
        var inning: Int
        var outs: UInt8
    }
}
