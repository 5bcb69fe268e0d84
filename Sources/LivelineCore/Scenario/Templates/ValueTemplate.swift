/// A content-state or attributes value as written, before the moment it is evaluated.
///
/// Most values are literals. Dates are written relative to the moment a beat happens (or the
/// activity start), and strings may hold `{{ }}` templates; both only become a ``StateValue``
/// when the engine plays the beat.
public indirect enum ValueTemplate: Sendable {
    /// A value fixed in the file.
    case literal(StateValue)
    /// A `!date`, resolved when the beat plays.
    case date(DateTemplate)
    /// A `!date-range` of two dates, resolved when the beat plays.
    case dateRange(DateTemplate, DateTemplate)
    /// A string that is exactly one `{{ expr }}`: the value keeps the expression's type.
    case expression(Expression)
    /// A string with templates inside it.
    case text(TextTemplate)
    /// A mapping, keys in written order.
    case object([ValueField])
    /// A list, items in written order.
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
    /// The field's name, exactly the app's Swift property name.
    public var key: String
    /// The field's value, not yet evaluated.
    public var value: ValueTemplate
    /// Where the field is written, for diagnostics.
    public var location: SourceLocation

    /// A field `key` of `value`, written at `location`.
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
    /// A piece of a text template.
    public enum Part: Sendable, Hashable {
        /// Text kept as written.
        case literal(String)
        /// A `{{ }}` whose value is formatted into the text.
        case expression(Expression)
    }

    /// The parts, in order; their values are joined.
    public var parts: [Part]

    /// A template of `parts`.
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
