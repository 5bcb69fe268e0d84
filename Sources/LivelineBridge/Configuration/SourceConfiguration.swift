import Liveline

/// One sender of events: a webhook sender (how its requests are verified) or a stream the bridge
/// reads (``stream``), where its values are, which scenario and activity its events drive, and
/// what each event type does.
public struct SourceConfiguration: Sendable {
    /// The name in `POST /v1/webhooks/{name}`, in metrics and in the inbox.
    public var name: String
    /// The scheme as configured (printing it shows no secret); `.none` for a stream, which takes
    /// no webhooks.
    public var scheme: VerificationScheme
    /// Built once at load, so a bad secret or header fails before any webhook.
    public var verifier: any WebhookVerifier
    /// nil: the sender has no event id; the SHA-256 of the body stands in (as it does for a
    /// header the scheme does not sign: ``VerificationScheme/signsEventIDHeaders``).
    public var eventID: ValueLocation?
    /// How many keys and levels its bodies may have: the bridge's `body-keys` and `body-depth`
    /// (``BridgeConfiguration/jsonLimits`` sets it on every source), so ingest and the
    /// dispatcher, which maps stored events again, read bodies alike.
    public var jsonLimits = BridgeConfiguration.standardJSONLimits
    /// What an event whose id is missing, empty or only whitespace gets (`event-id: {from:,
    /// when-missing:}`): refused with 422, or deduplicated on the body's SHA-256.
    public var missingEventID: MissingEventIDPolicy
    /// Where the event's type is (a JSON Pointer into the body, or a header): it picks the ``EventRule``.
    public var eventType: ValueLocation
    /// Where the key naming the activity is (an order number, a match id): one activity per key.
    public var activityKey: ValueLocation
    /// nil: events apply in arrival order.
    public var order: OrderRule?
    /// The scenario the activities of this source follow, loaded and checked.
    public var scenario: Scenario
    /// The index of the activity of ``scenario`` that each activity key plays (its `activity:`, by name).
    public var activityIndex: Int
    /// What each event type does.
    public var events: [String: EventRule]
    /// What an event of a type no rule names gets: ignored, or refused.
    public var unknownEvents: UnknownEventPolicy
    /// nil: no limit. Over it, webhooks are answered 429 with `Retry-After`.
    public var rateLimit: RateLimit?
    /// How the stream is read, for `kind: stream`; nil for a webhook sender.
    public var stream: StreamSettings?
    /// Where the source is declared.
    public var location: SourceLocation

    /// A source with every part given; ``BridgeConfigurationLoader`` builds these from the file.
    public init(
        name: String, scheme: VerificationScheme, verifier: any WebhookVerifier, eventID: ValueLocation?,
        eventType: ValueLocation, activityKey: ValueLocation, order: OrderRule?, scenario: Scenario, activityIndex: Int,
        events: [String: EventRule], unknownEvents: UnknownEventPolicy, rateLimit: RateLimit? = nil,
        stream: StreamSettings? = nil, missingEventID: MissingEventIDPolicy = .refuse, location: SourceLocation
    ) {
        self.name = name
        self.scheme = scheme
        self.verifier = verifier
        self.eventID = eventID
        self.missingEventID = missingEventID
        self.eventType = eventType
        self.activityKey = activityKey
        self.order = order
        self.scenario = scenario
        self.activityIndex = activityIndex
        self.events = events
        self.unknownEvents = unknownEvents
        self.rateLimit = rateLimit
        self.stream = stream
        self.location = location
    }

    /// Whether the bridge reads this source's events from a stream rather than taking webhooks.
    public var isStream: Bool { stream != nil }
}

/// What happens to an event whose id is missing, empty or only whitespace.
public enum MissingEventIDPolicy: String, Sendable, Hashable {
    /// Answered 422 with the reason: a blank id as an idempotency key would make every later
    /// blank-id event of the source a duplicate, acknowledged and dropped.
    case refuse
    /// The body's SHA-256 stands in, as for a source with no event id at all.
    case bodyHash = "body-hash"
}

/// What happens to an event whose type no rule names.
public enum UnknownEventPolicy: String, Sendable, Hashable {
    /// Acknowledged and recorded, nothing pushed: senders add event types over time.
    case ignore
    /// Answered 422, so a misconfigured sender notices.
    case reject
}

/// What one event type does, in this order: start the activity, trigger a beat, change fields
/// (with relevance, priority, alert), end it.
public struct EventRule: Sendable, Hashable {
    /// Push-to-start the activity.
    public var start: Bool
    /// A beat of the scenario, by id, and the `input` its templates read.
    public var trigger: BeatTrigger?
    /// Fields, relevance, priority or an alert from the event; nil when the rule sets none.
    public var change: ChangeRule?
    /// End the activity, with this dismissal (nil inside: the policy's).
    public var end: Dismissal??

    /// A rule doing the parts given, in the order start, trigger, change, end.
    public init(start: Bool = false, trigger: BeatTrigger? = nil, change: ChangeRule? = nil, end: Dismissal?? = nil) {
        self.start = start
        self.trigger = trigger
        self.change = change
        self.end = end
    }
}

/// Trigger a beat by id. Its templates read `input.<name>`.
public struct BeatTrigger: Sendable, Hashable {
    /// One `input` field and where the event carries it.
    public struct InputField: Sendable, Hashable {
        /// The name the beat's templates read, as `input.<name>`.
        public var name: String
        /// Where the event carries the value.
        public var location: ValueLocation

        /// An input field `name`, read from `location`.
        public init(name: String, location: ValueLocation) {
            self.name = name
            self.location = location
        }
    }

    /// The id of the scenario's beat to trigger.
    public var beat: String
    /// `input` fields taken from the event; nil passes the whole body as `input`.
    public var input: [InputField]?

    /// A trigger of `beat`, with `input` taken from the event (nil: the whole body).
    public init(beat: String, input: [InputField]?) {
        self.beat = beat
        self.input = input
    }
}

/// Content-state fields and presentation set straight from the event, for events no beat
/// describes (an ETA that moved).
public struct ChangeRule: Sendable, Hashable {
    /// The content-state fields to set, each with where its value comes from.
    public var set: [FieldRule]
    /// The new `relevance-score`; nil keeps the current one.
    public var relevance: Double?
    /// `.high` asks for priority 10 (charged to the budget); nil or `.low` sends at 5.
    public var priority: Priority?
    /// An alert filled from the event; nil for a silent update.
    public var alert: AlertRule?

    /// A change with the parts given; an empty one changes nothing.
    public init(set: [FieldRule] = [], relevance: Double? = nil, priority: Priority? = nil, alert: AlertRule? = nil) {
        self.set = set
        self.relevance = relevance
        self.priority = priority
        self.alert = alert
    }
}

/// One content-state field and where its value comes from.
public struct FieldRule: Sendable, Hashable {
    /// Where a field's new value comes from.
    public enum Value: Sendable, Hashable {
        /// A fixed value.
        case literal(StateValue)
        /// Read from the event, converted.
        case read(ValueLocation, as: Conversion)
        /// Text with `{{ /pointer }}` holes filled from the event: `"GOAL! {{ /scorer }}"`.
        case template(BodyTemplate)
        /// Read from the event and translated: the sender's word for a status becomes the
        /// app's (`pickup_complete` → `on-the-way`).
        case mapped(ValueLocation, ValueMap)
    }

    /// A translation table from what a sender sends (as text) to a content-state value.
    public struct ValueMap: Sendable, Hashable {
        /// Each word the sender may send, and the content-state value it becomes.
        public var entries: [String: StateValue]
        /// For anything the table does not name; nil: such an event does not map.
        public var fallback: StateValue?
        /// Where each entry's value (and `default:`'s, under the key `""`) is written, for
        /// messages; not part of what the map means, so not of its equality.
        public var locations: [String: SourceLocation]

        /// A table of `entries`, with `fallback` for any other word.
        public init(
            entries: [String: StateValue], fallback: StateValue? = nil, locations: [String: SourceLocation] = [:]
        ) {
            self.entries = entries
            self.fallback = fallback
            self.locations = locations
        }

        public static func == (a: ValueMap, b: ValueMap) -> Bool { a.entries == b.entries && a.fallback == b.fallback }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(entries)
            hasher.combine(fallback)
        }
    }

    /// How a value read from the event becomes a content-state value.
    public enum Conversion: String, Sendable, Hashable {
        /// As the JSON has it.
        case json
        /// ISO-8601 or UNIX seconds/millis into a date (``DateConversion``).
        case date
        /// Any scalar as text.
        case string
    }

    /// The key path into the content-state.
    public var path: [String]
    /// Where the new value comes from.
    public var value: Value
    /// Where the value is written, for messages; not part of the rule's equality.
    public var location: SourceLocation?

    /// A rule setting the field at `path` from `value`.
    public init(path: [String], value: Value, location: SourceLocation? = nil) {
        self.path = path
        self.value = value
        self.location = location
    }

    public static func == (a: FieldRule, b: FieldRule) -> Bool { a.path == b.path && a.value == b.value }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(value)
    }
}

/// An alert whose title and body are filled from the event: `{{ /courier/name }}` is replaced by
/// what the pointer finds.
public struct AlertRule: Sendable, Hashable {
    /// The alert's title, filled from the event; nil for none.
    public var title: BodyTemplate?
    /// The alert's body, filled from the event; nil for none.
    public var body: BodyTemplate?
    /// The sound file in the app's bundle, `default`, or nil for silence.
    public var sound: String?

    /// An alert rule with the parts given.
    public init(title: BodyTemplate?, body: BodyTemplate?, sound: String?) {
        self.title = title
        self.body = body
        self.sound = sound
    }
}
