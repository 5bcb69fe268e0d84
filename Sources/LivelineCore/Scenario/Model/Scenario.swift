/// A loaded, validated scenario file: one or more activities, each with its story.
///
/// A `Scenario` is what `ScenarioLoader` (in the Liveline module) returns when a file has no
/// errors. It is safe to play: every template resolves, every patch keeps the content-state's
/// types, and every payload fits APNs's limits for the file's own seed.
public struct Scenario: Sendable {
    /// Where it was read from, as the user named it.
    public var file: String
    /// Shown in plans and reports.
    public var name: String
    /// The app's bundle id. The `apns-topic` is ``topic``.
    public var bundleID: String
    /// Seeds jitter, `chance`, `random` and `pick`.
    public var seed: UInt64
    /// The activities, in file order.
    public var activities: [ActivitySpec]

    /// `<bundle-id>.push-type.liveactivity`, the `apns-topic` of every push.
    public var topic: String { LiveActivityTopic.topic(forBundleID: bundleID) }

    /// A scenario with every part given, for code that builds one without a file.
    public init(file: String, name: String, bundleID: String, seed: UInt64, activities: [ActivitySpec]) {
        self.file = file
        self.name = name
        self.bundleID = bundleID
        self.seed = seed
        self.activities = activities
    }
}

/// One activity's story: its static attributes, its first content-state and its beats.
public struct ActivitySpec: Sendable {
    /// Names the activity in plans, reports and the bridge's configuration.
    public var name: String
    /// When the activity starts, after the scenario starts.
    public var offset: Millis
    /// The Swift `ActivityAttributes` type name, sent in start pushes.
    public var attributesType: String
    /// The static attributes.
    public var attributes: ValueTemplate
    /// The initial content-state. It fixes each field's JSON type.
    public var contentState: ValueTemplate
    /// The initial `relevance-score`, if any.
    public var relevance: Double?
    /// The policy for this activity, file defaults and overrides merged.
    public var policy: Policy
    /// The beats in file order.
    public var beats: [BeatSpec]
    /// Where the activity is declared.
    public var location: SourceLocation
    /// Where `attributes-type`, `attributes` and `content-state` are written, for checks made
    /// after loading (against the app's own types); nil when built in code.
    public var attributesTypeLocation: SourceLocation?
    /// Where `attributes` is written; nil when built in code.
    public var attributesLocation: SourceLocation?
    /// Where `content-state` is written; nil when built in code.
    public var contentStateLocation: SourceLocation?
    /// How a screen draws it (`presentation:`), when the file says.
    public var presentation: Presentation?
    /// Its Live Update on Android (`android:`), when the file has one.
    public var android: AndroidLiveUpdate?

    /// The field layout of the content-state: its keys, in written order.
    public var stateKeys: [String] {
        if case .object(let pairs) = contentState { return pairs.map(\.key) }
        return []
    }

    /// The beat that starts the activity by push, if it is started by push.
    public var startBeat: Int? { beats.firstIndex { $0.start != nil } }

    /// An activity with every part given, for code that builds one without a file.
    public init(
        name: String, offset: Millis, attributesType: String, attributes: ValueTemplate,
        contentState: ValueTemplate, relevance: Double?, policy: Policy, beats: [BeatSpec],
        location: SourceLocation, presentation: Presentation? = nil
    ) {
        self.name = name
        self.offset = offset
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.relevance = relevance
        self.policy = policy
        self.beats = beats
        self.location = location
        self.presentation = presentation
    }
}
