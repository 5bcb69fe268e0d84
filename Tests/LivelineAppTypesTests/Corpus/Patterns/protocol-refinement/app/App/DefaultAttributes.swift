struct DefaultAttributes: PushAttributes {
    struct ContentState: PushContentState {
        var title: String
        var progress: Double
    }

    var campaign: String
}
