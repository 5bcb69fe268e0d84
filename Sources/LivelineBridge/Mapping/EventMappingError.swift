import Liveline

/// Why a verified webhook cannot be mapped, said so the sender can fix it: its ``reason`` goes
/// into the JSON answer, with ``status`` as the HTTP status.
public enum EventMappingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not JSON although a rule reads it, or is not UTF-8 (refused whatever the
    /// rules read).
    case bodyNotJSON(JSONSyntaxError)
    /// The body has more keys or levels than the bridge's `body-keys` or `body-depth`.
    case bodyOverLimit(JSONSyntaxError)
    /// The event id is empty or only whitespace, and the source does not fall back to the
    /// body's hash: as an idempotency key it would make every later such event a duplicate.
    case blankEventID(ValueLocation)
    /// The activity key breaks ``ActivityKeyRule``, which the registry applies too.
    case badActivityKey(ValueLocation, problem: String)
    /// Nothing at `location`, which the source reads for `role` (`activity-key`, `set eta`…).
    case missing(ValueLocation, role: String)
    /// The value at `location` is not what `role` needs.
    case unexpected(ValueLocation, role: String, expected: String, found: String)
    /// A status that the source's status-rank order does not list.
    case unknownStatus(String, location: ValueLocation, known: [String])
    /// No rule names this event type and the source rejects such events.
    case unknownEventType(String, known: [String])

    /// 400 for a body that is not JSON (or not UTF-8); 413 for one past the structure limits;
    /// 422 for JSON that does not fit the source's rules.
    public var status: Int {
        switch self {
        case .bodyNotJSON: 400
        case .bodyOverLimit: 413
        default: 422
        }
    }

    /// The text for the answer's `reason`.
    public var reason: String { description }

    public var description: String {
        switch self {
        case .bodyNotJSON(let error):
            return "body is not JSON: \(error)"
        case .bodyOverLimit(let error):
            return "body is too complex: \(error)"
        case .blankEventID(let location):
            return "\(location) (event-id) is empty or only whitespace, which cannot tell events apart; "
                + "send an id, or set the source's event-id to {from: \(location), when-missing: body-hash}"
        case .badActivityKey(let location, let problem):
            return "\(location) (activity-key): \(problem)"
        case .missing(let location, let role):
            switch location {
            case .body(let pointer): return "body has no \(pointer) (\(role))"
            case .header(let name): return "request has no header \(name) (\(role))"
            }
        case .unexpected(let location, let role, let expected, let found):
            return "\(location) (\(role)) is \(found); expected \(expected)"
        case .unknownStatus(let status, let location, let known):
            return
                "\(location) is '\(status)', which is not in the source's status order (\(known.joined(separator: ", ")))"
        case .unknownEventType(let type, let known):
            return "event type '\(type)' has no rule; this source maps \(known.sorted().joined(separator: ", "))"
        }
    }
}

extension StateValue {
    /// How a value reads in error messages: its type, and a short form of a scalar.
    var summary: String {
        switch self {
        case .string(let text): "the string '\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
        case .int(let number): "the number \(number)"
        case .double(let number): "the number \(number)"
        case .bool(let flag): "\(flag)"
        default: type.description
        }
    }
}
