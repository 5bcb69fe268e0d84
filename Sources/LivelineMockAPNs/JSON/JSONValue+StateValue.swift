import Liveline

extension JSONValue {
    /// The same value as Liveline's ``StateValue``, for ``ActivityPayloadDecoding``; numbers keep
    /// their integer or decimal form, dates are plain numbers (as the device receives them).
    var stateValue: StateValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(Int(value))
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.stateValue))
        case .object(let object):
            .object(StateObject(zip(object.keys, object.values.map(\.stateValue)).map { ($0, $1) }))
        }
    }
}
