/// A value in a content-state or attributes object, as the app will decode it.
///
/// Dates are kept apart from numbers because ActivityKit decodes them from reference-date
/// seconds (see ``ReferenceDate``): the encoder converts them, so nobody has to remember to.
public enum StateValue: Sendable, Hashable {
    /// JSON `null`: an optional field without a value.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number, encoded without a decimal point so an `Int` field decodes it.
    case int(Int)
    /// A decimal number.
    case double(Double)
    /// A string, escaped as JSON requires.
    case string(String)
    /// A `Date`, held as UNIX milliseconds.
    case date(Millis)
    /// A `ClosedRange<Date>`, held as UNIX milliseconds; encoded `[lower, upper]`.
    case dateRange(Millis, Millis)
    /// A list, encoded as a JSON array.
    case array([StateValue])
    /// A nested struct, its keys in the order they were written.
    case object(StateObject)

    /// The JSON type the app's decoder sees.
    public var type: ValueType {
        switch self {
        case .null: .null
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .date: .date
        case .dateRange: .dateRange
        case .array: .array
        case .object: .object
        }
    }
}

/// An object whose keys keep the order they were written in, so payload bytes are stable.
///
/// Keys are the Swift property names, exactly: no case conversion is ever applied.
public struct StateObject: Sendable, Hashable {
    /// The keys, in the order they were first set.
    public private(set) var keys: [String]
    /// The values, each at the index of its key in ``keys``.
    public var values: [StateValue]

    /// An object with no keys.
    public init() {
        keys = []
        values = []
    }

    /// An object of `pairs`, in their order; the keys must be distinct.
    public init(_ pairs: [(String, StateValue)]) {
        keys = pairs.map(\.0)
        values = pairs.map(\.1)
    }

    /// Keys and values already paired, the keys distinct (the JSON parser checks them).
    init(keys: [String], values: [StateValue]) {
        self.keys = keys
        self.values = values
    }

    /// How many keys the object has.
    public var count: Int { keys.count }

    /// The position of `key` in ``keys``, or `nil` when the object lacks it.
    public func index(of key: String) -> Int? { keys.firstIndex(of: key) }

    /// The value for `key`. Setting a new key appends it; setting `nil` removes the key.
    public subscript(key: String) -> StateValue? {
        get { index(of: key).map { values[$0] } }
        set {
            if let i = index(of: key) {
                if let newValue { values[i] = newValue } else { keys.remove(at: i); values.remove(at: i) }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }
}

/// The JSON shape of a value, as far as the app's `Decodable` types care.
public enum ValueType: String, Sendable, Hashable, CustomStringConvertible {
    /// `null`, which only an optional field accepts.
    case null
    /// `true` or `false`.
    case bool
    /// A number without a fraction.
    case int
    /// A number with a fraction.
    case double
    /// A string.
    case string
    /// A `Date`, sent as seconds since 2001-01-01 (a number on the wire).
    case date
    /// A `ClosedRange<Date>`, sent as a two-number array.
    case dateRange
    /// A JSON array.
    case array
    /// A JSON object (a nested `Codable` struct).
    case object

    public var description: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a decimal number"
        case .string: "a string"
        case .date: "a date"
        case .dateRange: "a date range"
        case .array: "a list"
        case .object: "an object"
        }
    }

    /// Whether a field first seen as `self` still decodes when sent `other`.
    ///
    /// An integer decodes into a `Double` field, so `int` may replace `double`; a decimal does not
    /// decode into an `Int`. `null` fits only fields that started as `null` (optionals).
    public func accepts(_ other: ValueType) -> Bool {
        if self == other { return true }
        if self == .double, other == .int { return true }
        return false
    }
}
