import Crypto
import HTTPTypes
import Liveline

/// Maps a verified webhook onto its activity with the rules of its source.
///
/// Pure: bytes and headers in, a ``MappedEvent`` or an ``EventMappingError`` out. The inbox
/// stores the result; the dispatcher applies its actions to the activity's engine in order
/// (`EventApplication`).
public struct EventMapper: Sendable {
    /// The source whose rules the mapper applies.
    public let source: SourceConfiguration

    /// A mapper with the rules of `source`.
    public init(source: SourceConfiguration) { self.source = source }

    /// Maps one webhook. `body` must already be verified.
    public func map(body: some Collection<UInt8>, headers: HTTPFields) throws(EventMappingError) -> MappedEvent {
        let bytes = Array(body)
        // Rules may read only headers; parse lazily, but a body that is not JSON is refused
        // as soon as any rule needs it. Bytes that are not UTF-8 or past the limits are refused
        // whatever the rules read: the body is stored, and read again later.
        let parsed: Result<StateValue, JSONSyntaxError> = Result { () throws(JSONSyntaxError) in
            try JSONParser.parse(bytes, limits: source.jsonLimits)
        }
        if case .failure(let error) = parsed {
            switch error.kind {
            case .invalidUTF8: throw .bodyNotJSON(error)
            case .limit: throw .bodyOverLimit(error)
            case .syntax: break
            }
        }
        func document() throws(EventMappingError) -> StateValue {
            switch parsed {
            case .success(let value): return value
            case .failure(let error): throw .bodyNotJSON(error)
            }
        }
        let reader = Reader(document: { () throws(EventMappingError) in try document() }, headers: headers)

        let eventType = try reader.text(at: source.eventType, role: "event-type")
        let activityKey = try reader.text(at: source.activityKey, role: "activity-key")
        if let problem = ActivityKeyRule.problem(with: activityKey) {
            throw .badActivityKey(source.activityKey, problem: problem)
        }
        let (eventID, isHash) = try self.eventID(reader, body: bytes)
        let rule = source.events[eventType]
        if rule == nil, source.unknownEvents == .reject {
            throw .unknownEventType(eventType, known: Array(source.events.keys))
        }
        var orderKey: OrderKey?
        do throws(EventMappingError) {
            orderKey = try self.orderKey(reader)
        } catch {
            // An event nobody maps is only recorded: its order key may be a status not ranked.
            if rule != nil { throw error }
        }
        guard let rule else {
            return MappedEvent(
                eventID: eventID, eventIDIsBodyHash: isHash, eventType: eventType, activityKey: activityKey,
                orderKey: orderKey, actions: [], isIgnored: true)
        }
        let actions = try self.actions(for: rule, eventType: eventType, reader: reader)
        return MappedEvent(
            eventID: eventID, eventIDIsBodyHash: isHash, eventType: eventType, activityKey: activityKey,
            orderKey: orderKey, actions: actions)
    }

    /// The key the inbox deduplicates on: the sender's id, or the body's SHA-256 where the
    /// source has no id, its id is missing or blank and its rules say `when-missing: body-hash`,
    /// or its id is a header its scheme does not sign (GitHub's and Shopify's delivery ids,
    /// which anyone replaying a captured body could change).
    private func eventID(_ reader: Reader, body: [UInt8]) throws(EventMappingError) -> (String, isHash: Bool) {
        let hash = { "sha256:" + HexText.encode(SHA256.hash(data: body)) }
        guard let location = source.eventID else { return (hash(), true) }
        if case .header = location, !source.scheme.signsEventIDHeaders { return (hash(), true) }
        let id: String
        do throws(EventMappingError) {
            id = try reader.text(at: location, role: "event-id")
        } catch {
            if case .missing = error, source.missingEventID == .bodyHash { return (hash(), true) }
            throw error
        }
        if id.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
            if source.missingEventID == .bodyHash { return (hash(), true) }
            throw .blankEventID(location)
        }
        return (id, false)
    }

    private func orderKey(_ reader: Reader) throws(EventMappingError) -> OrderKey? {
        guard let order = source.order else { return nil }
        let value = try reader.value(at: order.location, role: "order-key")
        switch order.key(from: value) {
        case .success(let key): return key
        case .failure(.expected(let expected)):
            throw .unexpected(order.location, role: "order-key", expected: expected, found: value.summary)
        case .failure(.unknownStatus(let status, let known)):
            throw .unknownStatus(status, location: order.location, known: known)
        }
    }

    /// The rule's actions: start, trigger, change (which carries the end when both are given), end.
    private func actions(
        for rule: EventRule, eventType: String, reader: Reader
    ) throws(EventMappingError) -> [MappedAction] {
        var actions: [MappedAction] = []
        if rule.start { actions.append(.start) }
        if let trigger = rule.trigger {
            var input: StateValue?
            if let fields = trigger.input {
                var object = StateObject()
                for field in fields {
                    object.append(field.name, try reader.value(at: field.location, role: "input \(field.name)"))
                }
                input = .object(object)
            } else if case .success(let body) = reader.parsedBody() {
                input = body
            }
            actions.append(.trigger(beat: trigger.beat, input: input))
        }
        if let changeRule = rule.change {
            var change = ExternalChange(
                label: eventType, relevance: changeRule.relevance, priority: changeRule.priority)
            for field in changeRule.set {
                change.set.append(ExternalChange.FieldChange(field.path, try reader.value(for: field)))
            }
            if let alert = changeRule.alert {
                change.alert = Alert<String>(
                    title: try alert.title.map { template throws(EventMappingError) in
                        Alert<String>.Text.plain(try reader.render(template))
                    },
                    body: try alert.body.map { template throws(EventMappingError) in
                        Alert<String>.Text.plain(try reader.render(template))
                    },
                    sound: alert.sound)
            }
            if let end = rule.end {
                change.end = true
                change.dismissal = end
            }
            actions.append(.change(change))
        } else if let end = rule.end {
            actions.append(.end(end))
        }
        return actions
    }
}

/// Reads values out of one webhook for the mapper, turning absences into located errors.
private struct Reader {
    let document: () throws(EventMappingError) -> StateValue
    let headers: HTTPFields

    func parsedBody() -> Result<StateValue, EventMappingError> {
        Result { () throws(EventMappingError) in try document() }
    }

    func value(at location: ValueLocation, role: String) throws(EventMappingError) -> StateValue {
        let body: StateValue? = if case .body = location { try document() } else { nil }
        guard let value = location.value(body: body, headers: headers), value != .null else {
            throw .missing(location, role: role)
        }
        return value
    }

    /// A scalar as text: ids and keys may be numbers in one sender and strings in another.
    func text(at location: ValueLocation, role: String) throws(EventMappingError) -> String {
        let value = try value(at: location, role: role)
        guard let text = value.plainText else {
            throw .unexpected(location, role: role, expected: "a string or a number", found: value.summary)
        }
        return text
    }

    func value(for field: FieldRule) throws(EventMappingError) -> StateValue {
        let role = "set \(field.path.joined(separator: "."))"
        switch field.value {
        case .literal(let value):
            return value
        case .read(let location, .json):
            return try value(at: location, role: role)
        case .read(let location, .string):
            let value = try value(at: location, role: role)
            guard let text = value.plainText else {
                throw .unexpected(location, role: role, expected: "a string or a number", found: value.summary)
            }
            return .string(text)
        case .read(let location, .date):
            let value = try value(at: location, role: role)
            guard let millis = DateConversion.millis(from: value) else {
                throw .unexpected(
                    location, role: role, expected: "an ISO-8601 date or UNIX seconds or milliseconds",
                    found: value.summary)
            }
            return .date(millis)
        case .template(let template):
            return .string(try render(template, role: role))
        case .mapped(let location, let map):
            let value = try value(at: location, role: role)
            if let text = value.plainText, let mapped = map.entries[text] { return mapped }
            if let fallback = map.fallback { return fallback }
            throw .unexpected(
                location, role: role, expected: "one of \(map.entries.keys.sorted().joined(separator: ", "))",
                found: value.summary)
        }
    }

    func render(_ template: BodyTemplate, role: String = "alert") throws(EventMappingError) -> String {
        let body = try? document()
        switch template.render(body: body, headers: headers) {
        case .success(let text): return text
        case .failure(let missing): throw .missing(missing.location, role: role)
        }
    }
}
