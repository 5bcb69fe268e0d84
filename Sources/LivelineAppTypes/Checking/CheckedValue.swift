import Liveline

/// A value to check against the app's types: what a push carries, or what a scenario's
/// template can produce.
///
/// A push's JSON is known exactly. A scenario's value may be known only by its type (a
/// `{{ n + 45 }}` is an integer, a text template a string), be one of a few (`pick`), or be
/// known only when it arrives (`{{ input.note }}`). Object fields carry their place in the
/// scenario file, so a problem can be located there.
public indirect enum CheckedValue: Sendable {
    /// Known exactly: a literal, or a push's JSON (whose dates are plain numbers).
    case known(StateValue)
    /// Known by its JSON type only; the text says what it is, like `{{ n + 45 }}`.
    case typed(ValueType, String)
    /// One of these, chosen at run time.
    case oneOf([CheckedValue])
    /// Known only at run time, like `{{ input.note }}`.
    case runtime(String)
    /// An object whose fields know where they are written.
    case object([CheckedField])
    case array([CheckedValue])
}

extension CheckedValue {
    /// The fields of an object, as written in a scenario or parsed from a push; nil when the
    /// value is not an object whose fields are known.
    var objectFields: [CheckedField]? {
        switch self {
        case .object(let fields): fields
        case .known(.object(let object)):
            zip(object.keys, object.values).map { CheckedField(key: $0, value: .known($1), location: nil) }
        default: nil
        }
    }
}

/// One field of a ``CheckedValue/object(_:)``.
public struct CheckedField: Sendable {
    public var key: String
    public var value: CheckedValue
    /// Where the field is written in the scenario; nil for a push's JSON.
    public var location: SourceLocation?

    public init(key: String, value: CheckedValue, location: SourceLocation?) {
        self.key = key
        self.value = value
        self.location = location
    }
}
