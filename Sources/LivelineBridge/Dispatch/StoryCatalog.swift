import Liveline

/// The stories activities follow, compiled once per source: the program each activity key of
/// a source plays, the topic its pushes carry, and the mapper that reads its webhooks.
public struct StoryCatalog: Sendable {
    public struct Story: Sendable {
        public let source: SourceConfiguration
        public let program: ActivityProgram
        public let mapper: EventMapper
        /// `<bundle id>.push-type.liveactivity`.
        public let topic: String
    }

    private let stories: [String: Story]
    /// Source names in the configuration's order.
    public let sourceNames: [String]

    /// - Parameter topic: overrides every scenario's bundle id (the configuration's `apns.topic`).
    public init(sources: [SourceConfiguration], topic: String? = nil) {
        var stories: [String: Story] = [:]
        for source in sources {
            let scenario = source.scenario
            let index = min(max(source.activityIndex, 0), max(scenario.activities.count - 1, 0))
            guard scenario.activities.indices.contains(index) else { continue }
            let program = ActivityProgram(scenario.activities[index], index: index, scenarioSeed: scenario.seed)
            stories[source.name] = Story(
                source: source, program: program, mapper: EventMapper(source: source),
                topic: LiveActivityTopic.topic(forBundleID: topic ?? scenario.bundleID)
            )
        }
        self.stories = stories
        self.sourceNames = sources.map(\.name).filter { stories[$0] != nil }
    }

    public subscript(source: String) -> Story? { stories[source] }
}
