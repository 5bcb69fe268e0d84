/// A content-state or attributes value as written, before the moment it is evaluated.
///
/// Most values are literals. Dates are written relative to the moment a beat happens (or the
/// activity start), and strings may hold `{{ }}` templates; both only become a ``StateValue``
/// when the engine plays the beat.
public indirect enum ValueTemplate: Sendable {
    case literal(StateValue)
    case date(DateTemplate)
    case dateRange(DateTemplate, DateTemplate)
    /// A string that is exactly one `{{ expr }}`: the value keeps the expression's type.
    case expression(Expression)
    /// A string with templates inside it.
    case text(TextTemplate)
    /// A mapping, keys in written order.
    case object([ValueField])
    case array([ValueTemplate])

    /// The fields of an object template, or nil.
    public var fields: [ValueField]? {
        if case .object(let fields) = self { return fields }
        return nil
    }

    /// Whether evaluating it needs anything beyond its own text (a date, a template, a nested one).
    public var isConstant: Bool {
        switch self {
        case .literal: true
        case .date, .dateRange, .expression, .text: false
        case .object(let fields): fields.allSatisfy { $0.value.isConstant }
        case .array(let items): items.allSatisfy(\.isConstant)
        }
    }
}

/// One `key: value` of an object template.
public struct ValueField: Sendable {
    public var key: String
    public var value: ValueTemplate
    public var location: SourceLocation

    public init(key: String, value: ValueTemplate, location: SourceLocation) {
        self.key = key
        self.value = value
        self.location = location
    }
}

/// A `!date` value.
public enum DateTemplate: Sendable, Hashable {
    /// `!date +25m`: this long after the moment the beat happens (for the initial state, the activity start).
    case afterBeat(Millis)
    /// `!date start+1h`: this long after the activity start.
    case afterStart(Millis)
    /// `!date 2026-11-22T20:00:00Z`: UNIX milliseconds.
    case absolute(Millis)
}

/// A string with `{{ }}` templates in it: `"GOAL! {{ state.minute }}'"`.
public struct TextTemplate: Sendable, Hashable {
    public enum Part: Sendable, Hashable {
        case literal(String)
        case expression(Expression)
    }

    public var parts: [Part]

    public init(parts: [Part]) { self.parts = parts }

    /// A template with no expressions.
    public init(_ text: String) { parts = [.literal(text)] }

    /// The text itself when there is nothing to evaluate.
    public var constant: String? {
        if parts.isEmpty { return "" }
        if parts.count == 1, case .literal(let text) = parts[0] { return text }
        return nil
    }
}
