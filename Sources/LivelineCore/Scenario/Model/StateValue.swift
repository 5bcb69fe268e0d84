/// A value in a content-state or attributes object, as the app will decode it.
///
/// Dates are kept apart from numbers because ActivityKit decodes them from reference-date
/// seconds (see ``ReferenceDate``): the encoder converts them, so nobody has to remember to.
public enum StateValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// A `Date`, held as UNIX milliseconds.
    case date(Millis)
    /// A `ClosedRange<Date>`, held as UNIX milliseconds; encoded `[lower, upper]`.
    case dateRange(Millis, Millis)
    case array([StateValue])
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
    public private(set) var keys: [String]
    public var values: [StateValue]

    public init() {
        keys = []
        values = []
    }

    public init(_ pairs: [(String, StateValue)]) {
        keys = pairs.map(\.0)
        values = pairs.map(\.1)
    }

    /// Keys and values already paired, the keys distinct (the JSON parser checks them).
    init(keys: [String], values: [StateValue]) {
        self.keys = keys
        self.values = values
    }

    public var count: Int { keys.count }

    public func index(of key: String) -> Int? { keys.firstIndex(of: key) }

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
    case null, bool, int, double, string, date, dateRange, array, object

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
