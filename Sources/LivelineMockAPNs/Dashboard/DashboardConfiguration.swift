import Liveline

/// The live dashboard page (`--dashboard HOST:PORT`): where it listens and what it knows about
/// the activities beyond their pushes (their names and how to draw them, from a scenario).
public struct DashboardConfiguration: Sendable {
    /// The address to listen on; loopback unless told otherwise.
    public var host: String = "127.0.0.1"
    /// The port; 0 picks a free one (read it back from ``MockAPNsServer/dashboardPort``).
    public var port: Int = 2199
    /// Where the user sets the address, named when it cannot be bound (`play` takes
    /// `--dashboard-listen`).
    public var setting = "--dashboard"
    /// Activity names by token (update or push-to-start), for labels and search.
    public var names: [String: String] = [:]
    /// How to draw activities: by token, by `attributes-type`, then ``fallbackPresentation``.
    public var presentationsByToken: [String: Presentation] = [:]
    public var presentationsByAttributesType: [String: Presentation] = [:]
    public var fallbackPresentation: Presentation?
    /// The scenario's static attributes, by token, then `attributes-type`. The device only learns
    /// attributes from a start push; for activities the app started, these fill the titles.
    public var attributesByToken: [String: JSONValue] = [:]
    public var attributesByAttributesType: [String: JSONValue] = [:]
    /// The name for tokens the scenario does not list, when it has a single activity (a mock
    /// given one `--scenario` and any number of tokens, as in a load test).
    public var fallbackName: String?
    /// Activities drawn in full; more matches are counted and sampled.
    public var shownActivities: Int = 24
    /// How often a connected page may get a new frame. Pushes between frames are coalesced.
    public var frameInterval: Duration = .milliseconds(250)
    /// The keys fanned out to many devices, drawn as audiences (followers by state, fan-out
    /// progress) above the devices; nil when the mock's sender has none (the bridge has).
    public var audiences: (any DashboardAudienceSource)?

    public init(host: String = "127.0.0.1", port: Int = 2199) {
        self.host = host
        self.port = port
    }

    /// Names and presentations for `scenario`'s activities, with `tokens[i]` the token of
    /// activity `i` (when known). A single activity type's presentation is also the fallback.
    public mutating func describe(_ scenario: Scenario, tokens: [String?] = []) {
        for (index, activity) in scenario.activities.enumerated() {
            if index < tokens.count, let token = tokens[index]?.lowercased() {
                names[token] = activity.name
                if let presentation = activity.presentation { presentationsByToken[token] = presentation }
                if let attributes = Self.json(activity.attributes) { attributesByToken[token] = attributes }
            }
            if attributesByAttributesType[activity.attributesType] == nil,
                let attributes = Self.json(activity.attributes)
            {
                attributesByAttributesType[activity.attributesType] = attributes
            }
            if let presentation = activity.presentation, presentationsByAttributesType[activity.attributesType] == nil {
                presentationsByAttributesType[activity.attributesType] = presentation
            }
        }
        let types = Set(scenario.activities.map(\.attributesType))
        if types.count == 1, let presentation = scenario.activities.lazy.compactMap(\.presentation).first {
            fallbackPresentation = fallbackPresentation ?? presentation
        }
        if scenario.activities.count == 1, tokens.isEmpty {
            fallbackName = fallbackName ?? scenario.activities.first?.name
        }
    }

    func attributes(tokens: [String], attributesType: String?) -> JSONValue? {
        for token in tokens { if let found = attributesByToken[token] { return found } }
        if let attributesType, let found = attributesByAttributesType[attributesType] { return found }
        return attributesByAttributesType.count == 1 ? attributesByAttributesType.values.first : nil
    }

    /// The JSON of attribute values written as plain YAML; templates and dates are left out.
    static func json(_ template: ValueTemplate) -> JSONValue? {
        switch template {
        case .literal(let value):
            switch value {
            case .null: return .null
            case .bool(let flag): return .bool(flag)
            case .int(let number): return .int(Int64(number))
            case .double(let number): return .double(number)
            case .string(let text): return .string(text)
            default: return nil
            }
        case .object(let fields):
            return .object(JSONObject(fields.compactMap { field in json(field.value).map { (field.key, $0) } }))
        case .array(let items):
            return .array(items.compactMap(json))
        default:
            return nil
        }
    }

    func presentation(tokens: [String], attributesType: String?) -> Presentation? {
        for token in tokens { if let found = presentationsByToken[token] { return found } }
        if let attributesType, let found = presentationsByAttributesType[attributesType] { return found }
        return fallbackPresentation
    }

    func name(tokens: [String]) -> String? {
        for token in tokens { if let found = names[token] { return found } }
        return fallbackName
    }
}
