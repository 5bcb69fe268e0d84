import Liveline

/// The stories activities follow, compiled once per source: the program each activity key of
/// a source plays, the topic its pushes carry, and the mapper that reads its webhooks.
public struct StoryCatalog: Sendable {
    /// One source's story, compiled.
    public struct Story: Sendable {
        /// The source as configured.
        public let source: SourceConfiguration
        /// The activity program each of the source's activity keys plays.
        public let program: ActivityProgram
        /// Reads the source's events into actions.
        public let mapper: EventMapper
        /// `<bundle id>.push-type.liveactivity`.
        public let topic: String
    }

    private let stories: [String: Story]
    /// Source names in the configuration's order.
    public let sourceNames: [String]

    /// The stories of `sources`, each compiled once.
    ///
    /// - Parameters:
    ///   - sources: the configured sources; one whose activity the scenario lacks is left out.
    ///   - topic: overrides every scenario's bundle id (the configuration's `apns.topic`).
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

    /// The story of the source named `source`, if there is one.
    public subscript(source: String) -> Story? { stories[source] }
}
