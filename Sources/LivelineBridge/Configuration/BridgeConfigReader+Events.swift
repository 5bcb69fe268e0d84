import Liveline
import Yams

extension BridgeConfigReader {
    static let ruleKeys = ["start", "trigger", "input", "set", "relevance", "priority", "alert", "end"]

    /// `events:` event type → rule, each checked against the activity it drives.
    mutating func events(_ node: Node, activity: ActivitySpec, scenario: Scenario) -> [String: EventRule] {
        guard case .mapping(let mapping) = node, !mapping.isEmpty else {
            error(
                node,
                "expected events as a mapping of event types to what they do, found \(ScenarioReader.describe(node))")
            return [:]
        }
        var rules: [String: EventRule] = [:]
        for (key, value) in mapping {
            guard let type = base.string(key, "an event type") else { continue }
            if let rule = rule(value, type: type, activity: activity, scenario: scenario) { rules[type] = rule }
        }
        return rules
    }

    private mutating func rule(_ node: Node, type: String, activity: ActivitySpec, scenario: Scenario) -> EventRule? {
        guard let fields = base.fields(of: node, in: "event '\(type)'", allowed: Self.ruleKeys) else { return nil }
        guard !fields.order.isEmpty else {
            error(node, "event '\(type)' does nothing; expected trigger, set, relevance, priority, alert, start or end")
            return nil
        }
        var rule = EventRule()
        if let node = fields["start"], let value = base.bool(node, "start") {
            // A push-to-start sends what the activity's start beat describes (attributes, alert).
            if value, activity.startBeat == nil {
                error(
                    node,
                    "start needs a beat with 'start:' in activity '\(activity.name)', which push-to-start sends; it has none"
                )
            } else {
                rule.start = value
            }
        }

        if let node = fields["trigger"], let beat = base.string(node, "trigger") {
            let ids = activity.beats.compactMap(\.id)
            if ids.contains(beat) {
                rule.trigger = BeatTrigger(beat: beat, input: fields["input"].flatMap { self.input($0) })
            } else {
                error(
                    node,
                    "activity '\(activity.name)' of \(scenario.file) has no beat with id '\(beat)'\(Self.hint(beat, ids))"
                )
            }
        } else if let node = fields["input"] {
            error(
                fields.keyNode("input") ?? node,
                "input only applies with trigger: it is the input of the triggered beat")
        }

        var change = ChangeRule()
        var changes = false
        if let node = fields["set"] {
            change.set = fieldRules(node, activity: activity)
            changes = true
        }
        if let node = fields["relevance"], let value = base.number(node, "relevance") {
            change.relevance = value
            changes = true
        }
        if let node = fields["priority"],
            let value = base.choice(node, "priority", [("high", Priority.high), ("low", .low)])
        {
            change.priority = value
            changes = true
        }
        if let node = fields["alert"] {
            change.alert = alert(node)
            changes = true
        }
        if changes { rule.change = change }
        if let node = fields["end"] { rule.end = end(node) }
        return rule
    }

    /// `input: { name: POINTER }`.
    private mutating func input(_ node: Node) -> [BeatTrigger.InputField]? {
        guard case .mapping(let mapping) = node else {
            error(
                node,
                "expected input as a mapping of input names to JSON Pointers, like { note: /note }, found \(ScenarioReader.describe(node))"
            )
            return nil
        }
        var fields: [BeatTrigger.InputField] = []
        for (key, value) in mapping {
            guard let name = base.string(key, "an input name"), let location = valueLocation(value, "input \(name)")
            else { continue }
            fields.append(BeatTrigger.InputField(name: name, location: location))
        }
        return fields
    }

    /// `set: { field: POINTER | literal | { from: POINTER, as: date } }`; dotted keys reach nested fields.
    private mutating func fieldRules(_ node: Node, activity: ActivitySpec) -> [FieldRule] {
        guard case .mapping(let mapping) = node else {
            error(
                node,
                "expected set as a mapping of content-state fields to values or JSON Pointers, found \(ScenarioReader.describe(node))"
            )
            return []
        }
        var rules: [FieldRule] = []
        for (key, value) in mapping {
            guard let name = base.string(key, "a content-state field") else { continue }
            let path = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard let type = Self.fieldType(path[...], in: activity.contentState) else {
                let known = activity.stateKeys
                error(key, "activity '\(activity.name)' has no content-state field '\(name)'\(Self.hint(name, known))")
                continue
            }
            if var rule = fieldRule(value, path: path, type: type) {
                rule.location = base.location(value)
                rules.append(rule)
            }
        }
        return rules
    }

    private mutating func fieldRule(_ node: Node, path: [String], type: ValueType?) -> FieldRule? {
        let name = path.joined(separator: ".")
        var locationNode: Node?
        var conversion: FieldRule.Conversion?
        switch node {
        case .mapping:
            guard
                let fields = base.fields(
                    of: node, in: "set \(name)", allowed: ["from", "as", "map", "default"],
                    required: ["from": "a JSON Pointer, like /eta"]
                )
            else { return nil }
            locationNode = fields["from"]
            if let mapNode = fields["map"] {
                if let asNode = fields.keyNode("as") {
                    error(asNode, "set \(name): 'map' already says what each value becomes; leave 'as' out")
                    return nil
                }
                guard let locationNode, let location = valueLocation(locationNode, "set \(name)"),
                    let map = valueMap(mapNode, fallback: fields["default"], field: name, type: type)
                else { return nil }
                return FieldRule(path: path, value: .mapped(location, map))
            } else if let defaultNode = fields.keyNode("default") {
                error(defaultNode, "default only applies with map: the value for anything the map does not name")
                return nil
            }
            if let asNode = fields["as"] {
                conversion = base.choice(
                    asNode, "as", [("date", FieldRule.Conversion.date), ("string", .string), ("json", .json)])
                if conversion == nil { return nil }
                if conversion == .date, let type, type != .date, type != .null {
                    error(asNode, "'\(name)' is \(type) in the content-state, not a date")
                    return nil
                }
            }
        case .scalar(let scalar)
        where !scalar.resolvedTagIs(.null)
            && (scalar.string.hasPrefix("/") || scalar.string.lowercased().hasPrefix("header:")):
            locationNode = node
        case .scalar(let scalar) where scalar.string.contains("{{"):
            if let type, type != .null, type != .string {
                error(node, "'\(name)' is \(type) in the content-state, but a template gives text")
                return nil
            }
            do throws(JSONPointerError) {
                return FieldRule(path: path, value: .template(try BodyTemplate(parsing: scalar.string)))
            } catch {
                self.error(node, "set \(name): \(error)")
                return nil
            }
        case .scalar:
            let value = Self.literal(node)
            if let type, type != .null, !type.accepts(value.type) {
                error(
                    node,
                    "'\(name)' is \(type) in the content-state, not \(value.type): the app would fail to decode it")
                return nil
            }
            return FieldRule(path: path, value: .literal(value))
        default:
            error(
                node,
                "expected set \(name) as a value, a JSON Pointer like /eta, or { from: POINTER, as: date }, found \(ScenarioReader.describe(node))"
            )
            return nil
        }
        guard let locationNode, let location = valueLocation(locationNode, "set \(name)") else { return nil }
        // A date field reads dates, so `as: date` need not be written.
        let resolved = conversion ?? (type == .date ? .date : .json)
        return FieldRule(path: path, value: .read(location, as: resolved))
    }

    /// `map: { sent: value, … }` with an optional `default:`, each value checked against the
    /// field's type.
    private mutating func valueMap(
        _ node: Node, fallback: Node?, field name: String, type: ValueType?
    ) -> FieldRule.ValueMap? {
        guard case .mapping(let mapping) = node, !mapping.isEmpty else {
            error(
                node,
                "expected map as a mapping from what the sender sends to the content-state value, like { pickup_complete: on-the-way }, found \(ScenarioReader.describe(node))"
            )
            return nil
        }
        var failed = false
        func typed(_ node: Node, _ reader: inout BridgeConfigReader) -> StateValue? {
            guard case .scalar = node else {
                reader.error(node, "expected a value for '\(name)', found \(ScenarioReader.describe(node))")
                return nil
            }
            let value = Self.literal(node)
            if let type, type != .null, !type.accepts(value.type) {
                reader.error(
                    node,
                    "'\(name)' is \(type) in the content-state, not \(value.type): the app would fail to decode it")
                return nil
            }
            return value
        }
        var entries: [String: StateValue] = [:]
        var locations: [String: SourceLocation] = [:]
        for (key, value) in mapping {
            guard let sent = base.string(key, "a value the sender sends") else { failed = true; continue }
            if let mapped = typed(value, &self) {
                entries[sent] = mapped
                locations[sent] = base.location(value)
            } else {
                failed = true
            }
        }
        var fallbackValue: StateValue?
        if let fallback {
            fallbackValue = typed(fallback, &self)
            locations[""] = base.location(fallback)
            if fallbackValue == nil { failed = true }
        }
        return failed ? nil : FieldRule.ValueMap(entries: entries, fallback: fallbackValue, locations: locations)
    }

    /// The type of the content-state field at `path` (nil inside: decided by a template), or
    /// nil when there is no such field.
    static func fieldType(_ path: ArraySlice<String>, in template: ValueTemplate) -> ValueType?? {
        guard let key = path.first, let fields = template.fields, let field = fields.first(where: { $0.key == key })
        else {
            return nil
        }
        let rest = path.dropFirst()
        if !rest.isEmpty { return fieldType(rest, in: field.value) }
        switch field.value {
        case .literal(let value): return .some(value.type)
        case .date: return .some(.date)
        case .dateRange: return .some(.dateRange)
        case .text: return .some(.string)
        case .object: return .some(.object)
        case .array: return .some(.array)
        case .expression: return .some(nil)
        }
    }

    /// A YAML scalar as a JSON value: null, true/false, integers, decimals, else text.
    static func literal(_ node: Node) -> StateValue {
        guard case .scalar(let scalar) = node else { return .null }
        let text = scalar.string
        if scalar.resolvedTagIs(.null) { return .null }
        if scalar.resolvedTagIs(.bool) { return .bool(text.lowercased() == "true") }
        if scalar.resolvedTagIs(.int), let value = Int(text.replacingUnderscores()) { return .int(value) }
        if scalar.resolvedTagIs(.float), let value = Double(text.replacingUnderscores()) { return .double(value) }
        return .string(text)
    }

    private mutating func alert(_ node: Node) -> AlertRule? {
        guard let fields = base.fields(of: node, in: "alert", allowed: ["title", "body", "sound"]) else { return nil }
        func template(_ key: String, _ reader: inout BridgeConfigReader) -> BodyTemplate? {
            guard let node = fields[key], let text = reader.base.string(node, "alert \(key)") else { return nil }
            do throws(JSONPointerError) {
                return try BodyTemplate(parsing: text)
            } catch {
                reader.error(node, "alert \(key): \(error)")
                return nil
            }
        }
        let title = template("title", &self)
        let body = template("body", &self)
        let sound = fields["sound"].flatMap { base.string($0, "sound") }
        if title == nil, body == nil {
            error(node, "alert needs a title or a body")
            return nil
        }
        return AlertRule(title: title, body: body, sound: sound)
    }

    /// `end: true` or `end: { dismissal: default | immediate | DURATION }`.
    private mutating func end(_ node: Node) -> Dismissal?? {
        if case .scalar = node {
            guard let value = base.bool(node, "end") else { return nil }
            if !value { error(node, "end: false does nothing; leave it out") }
            return value ? .some(nil) : nil
        }
        guard let fields = base.fields(of: node, in: "end", allowed: ["dismissal"]) else { return nil }
        guard let dismissalNode = fields["dismissal"] else { return .some(nil) }
        guard let text = base.string(dismissalNode, "dismissal") else { return nil }
        switch text {
        case "default": return .some(.default)
        case "immediate": return .some(.immediate)
        default:
            guard let millis = DurationText.parse(text) else {
                error(
                    dismissalNode,
                    "expected dismissal as default, immediate or \(DurationText.expected), found '\(text)'")
                return nil
            }
            return .some(.after(millis))
        }
    }
}
