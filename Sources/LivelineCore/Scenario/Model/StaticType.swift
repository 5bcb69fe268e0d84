/// The JSON shape a value will have, known before the story is played.
///
/// The loader uses it to catch a patch that would make the app's `JSONDecoder` fail, which on a
/// real device drops the update without a word. `unknown` is a value only known at run time
/// (a webhook's `input.`); it is checked when it arrives.
package indirect enum StaticType: Equatable, CustomStringConvertible {
    case unknown
    case scalar(ValueType)
    case array
    case object([(key: String, type: StaticType)])

    package static func == (lhs: StaticType, rhs: StaticType) -> Bool {
        switch (lhs, rhs) {
        case (.unknown, .unknown), (.array, .array): true
        case (.scalar(let a), .scalar(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.type == $1.type }
        default: false
        }
    }

    package var description: String {
        switch self {
        case .unknown: "a value known only when it arrives"
        case .scalar(let type): type.description
        case .array: "a list"
        case .object: "an object"
        }
    }

    package var isNull: Bool { self == .scalar(.null) }

    /// The type of a template. `state` gives the types of the current content-state's fields.
    package init(of template: ValueTemplate, state: StaticType) {
        switch template {
        case .literal(let value): self.init(of: value)
        case .date: self = .scalar(.date)
        case .dateRange: self = .scalar(.dateRange)
        case .text: self = .scalar(.string)
        case .expression(let expression): self = StaticType.infer(expression, state: state)
        case .array: self = .array
        case .object(let fields): self = .object(fields.map { ($0.key, StaticType(of: $0.value, state: state)) })
        }
    }

    init(of value: StateValue) {
        switch value {
        case .array: self = .array
        case .object(let object): self = .object(zip(object.keys, object.values).map { ($0, StaticType(of: $1)) })
        default: self = .scalar(value.type)
        }
    }

    /// The type at a key path, or nil when the path names nothing.
    package func type(at path: some Collection<String>) -> StaticType? {
        guard let first = path.first else { return self }
        guard case .object(let fields) = self, let field = fields.first(where: { $0.key == first }) else { return nil }
        return field.type.type(at: path.dropFirst())
    }

    /// This type with the field at `path` replaced.
    package func replacing(_ path: some Collection<String>, with type: StaticType) -> StaticType {
        guard let first = path.first else { return type }
        guard case .object(var fields) = self, let i = fields.firstIndex(where: { $0.key == first }) else {
            return self
        }
        fields[i].type = fields[i].type.replacing(path.dropFirst(), with: type)
        return .object(fields)
    }

    static func infer(_ expression: Expression, state: StaticType) -> StaticType {
        switch expression {
        case .number(let value): return .scalar(value.type)
        case .string: return .scalar(.string)
        case .variable(let variable): return variable == .activity ? .scalar(.string) : .scalar(.int)
        case .state(let path):
            guard let type = state.type(at: path), !type.isNull else { return .unknown }
            return type
        case .input, .attributes: return .unknown
        case .negate(let operand):
            let type = infer(operand, state: state)
            return type == .scalar(.int) || type == .scalar(.double) ? type : .unknown
        case .binary(let op, let lhs, let rhs):
            let a = infer(lhs, state: state), b = infer(rhs, state: state)
            if op == .add, a == .scalar(.string) || b == .scalar(.string) { return .scalar(.string) }
            if op != .decimalDivide, a == .scalar(.int), b == .scalar(.int) { return .scalar(.int) }
            let numeric: Set<ValueType> = [.int, .double]
            if case .scalar(let x) = a, case .scalar(let y) = b, numeric.contains(x), numeric.contains(y) {
                return .scalar(.double)
            }
            return .unknown
        case .random: return .scalar(.int)
        case .pick(let choices, _):
            let types = choices.map { infer($0, state: state) }
            guard let first = types.first, types.allSatisfy({ $0 == first }) else { return .unknown }
            return first
        }
    }

    /// Why a field of this type (the one the app declared) cannot decode `value`, or nil when it can.
    /// `optional` tells whether the field may be null.
    package func mismatch(with value: StaticType, optional: Bool) -> String? {
        switch (self, value) {
        case (.unknown, _), (_, .unknown): return nil
        case (_, .scalar(.null)):
            return optional ? nil : "null, but the field is not optional (it did not start as null)"
        case (.scalar(.null), _): return nil
        case (.scalar(let a), .scalar(let b)): return a.accepts(b) ? nil : b.description
        case (.array, .array): return nil
        case (.object(let expected), .object(let actual)):
            for field in actual {
                guard let declared = expected.first(where: { $0.key == field.key }) else {
                    return "an object with a field '\(field.key)' the first state does not have"
                }
                if let problem = declared.type.mismatch(with: field.type, optional: declared.type.isNull) {
                    return "an object whose '\(field.key)' is \(problem)"
                }
            }
            for field in expected where !actual.contains(where: { $0.key == field.key }) && !field.type.isNull {
                return "an object without '\(field.key)'"
            }
            return nil
        default: return value.description
        }
    }
}
