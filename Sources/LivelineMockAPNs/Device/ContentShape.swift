import Liveline

/// The JSON shape an activity's `ContentState` decodes from: each field's type, nested.
///
/// Established from the activity's first content-state, or given up front from a scenario's
/// ``StateObject`` (which also knows which numbers are `Date`s). A field first seen as `null` is
/// optional; its first non-null value fixes its type, as for the scenario format.
indirect enum ContentShape: Sendable, Hashable {
    /// A scalar of this type (`bool`, `int`, `double`, `string`, `date`, `dateRange`).
    case scalar(ValueType)
    /// An object with these fields, in order.
    case object(keys: [String], fields: [ContentShape])
    /// A list; the element shape, once known.
    case array(ContentShape?)
    /// An optional field whose type is not known yet.
    case unknownOptional
    /// An optional field of a known type.
    case optional(ContentShape)

    /// The shape a JSON value establishes.
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .unknownOptional
        case .bool: self = .scalar(.bool)
        case .int: self = .scalar(.int)
        case .double: self = .scalar(.double)
        case .string: self = .scalar(.string)
        case .array(let values): self = .array(values.first.map(ContentShape.init))
        case .object(let object):
            self = .object(keys: object.keys, fields: object.values.map(ContentShape.init))
        }
    }

    /// The shape a scenario's value declares; dates stay dates.
    init(_ value: StateValue) {
        switch value {
        case .null: self = .unknownOptional
        case .bool: self = .scalar(.bool)
        case .int: self = .scalar(.int)
        case .double: self = .scalar(.double)
        case .string: self = .scalar(.string)
        case .date: self = .scalar(.date)
        case .dateRange: self = .scalar(.dateRange)
        case .array(let values): self = .array(values.first.map(ContentShape.init))
        case .object(let object): self = ContentShape(object)
        }
    }

    /// The shape of a scenario's content-state object.
    init(_ object: StateObject) {
        self = .object(keys: object.keys, fields: object.values.map(ContentShape.init))
    }

    /// This shape with optional fields' types fixed by `value`, which passed the checks.
    func refined(by value: JSONValue?) -> ContentShape {
        guard let value else { return self }
        switch (self, value) {
        case (.unknownOptional, .null): return self
        case (.unknownOptional, _): return .optional(ContentShape(value))
        case (.optional(let inner), _):
            if case .null = value { return self }
            return .optional(inner.refined(by: value))
        case (.object(let keys, let fields), .object(let object)):
            return .object(keys: keys, fields: zip(keys, fields).map { $1.refined(by: object[$0]) })
        case (.array(nil), .array(let values)):
            return .array(values.first.map(ContentShape.init))
        default: return self
        }
    }
}

extension JSONValue {
    /// The type the app's decoder sees for this value.
    var valueType: ValueType {
        switch self {
        case .null: .null
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }
}
