import Liveline

extension CheckedValue {
    /// What a scenario's value can be when played, as far as it is known before playing.
    ///
    /// `state` is the activity's first content-state, for `{{ state.x }}` (a patch keeps each
    /// field's type, which the loader enforces).
    init(_ template: ValueTemplate, state: [ValueField]) {
        switch template {
        case .literal(let value): self = .known(value)
        case .date: self = .typed(.date, "a !date")
        case .dateRange(let lower, let upper):
            if case .absolute(let a) = lower, case .absolute(let b) = upper {
                self = .known(.dateRange(a, b))
            } else if case .afterBeat(let a) = lower, case .afterBeat(let b) = upper {
                self = .known(.dateRange(a, b))
            } else if case .afterStart(let a) = lower, case .afterStart(let b) = upper {
                self = .known(.dateRange(a, b))
            } else {
                self = .typed(.dateRange, "a !daterange")
            }
        case .text(let text):
            if let constant = text.constant {
                self = .known(.string(constant))
            } else {
                self = .typed(.string, "\"" + TemplateText.render(text) + "\"")
            }
        case .expression(let expression): self = CheckedValue(expression, state: state)
        case .object(let fields):
            self = .object(
                fields.map {
                    CheckedField(key: $0.key, value: CheckedValue($0.value, state: state), location: $0.location)
                })
        case .array(let items): self = .array(items.map { CheckedValue($0, state: state) })
        }
    }

    init(_ expression: Expression, state: [ValueField]) {
        let text = "{{ " + TemplateText.render(expression) + " }}"
        switch expression {
        case .number(let value): self = .known(value)
        case .string(let string): self = .known(.string(string))
        case .variable(let variable): self = .typed(variable == .activity ? .string : .int, text)
        case .state(let path):
            if let type = Self.type(at: path, in: state) { self = .typed(type, text) } else { self = .runtime(text) }
        case .input, .attributes: self = .runtime(text)
        case .random: self = .typed(.int, text)
        case .pick(let choices, _): self = .oneOf(choices.map { CheckedValue($0, state: state) })
        case .negate, .binary:
            if let type = Self.numericType(expression, state: state) {
                self = .typed(type, text)
            } else {
                self = .runtime(text)
            }
        }
    }

    /// The JSON type an arithmetic expression yields: integer when every operand is, decimal
    /// when one is, a string when `+` joins one; nil when an operand is known only at run time.
    private static func numericType(_ expression: Expression, state: [ValueField]) -> ValueType? {
        switch expression {
        case .number(let value): return value.type
        case .string: return .string
        case .variable(let variable): return variable == .activity ? .string : .int
        case .state(let path): return type(at: path, in: state)
        case .input, .attributes: return nil
        case .random: return .int
        case .pick(let choices, _):
            let types = choices.map { numericType($0, state: state) }
            guard let first = types.first, types.allSatisfy({ $0 == first }) else { return nil }
            return first
        case .negate(let operand): return numericType(operand, state: state)
        case .binary(let op, let lhs, let rhs):
            guard let a = numericType(lhs, state: state), let b = numericType(rhs, state: state) else { return nil }
            if op == .add, a == .string || b == .string { return .string }
            if op != .decimalDivide, a == .int, b == .int { return .int }
            return [.int, .double].contains(a) && [.int, .double].contains(b) ? .double : nil
        }
    }

    /// The type of the first content-state's field at `path`, if it is known and not null.
    private static func type(at path: [String], in fields: [ValueField]) -> ValueType? {
        guard let first = path.first, let field = fields.first(where: { $0.key == first }) else { return nil }
        let rest = Array(path.dropFirst())
        switch field.value {
        case .object(let inner): return rest.isEmpty ? .object : type(at: rest, in: inner)
        case .literal(let value):
            guard rest.isEmpty, value != .null else { return nil }
            return value.type
        case .date: return rest.isEmpty ? .date : nil
        case .dateRange: return rest.isEmpty ? .dateRange : nil
        case .text: return rest.isEmpty ? .string : nil
        case .array: return rest.isEmpty ? .array : nil
        case .expression: return nil
        }
    }
}

/// Template text for messages, written back the way a user writes it.
enum TemplateText {
    static func render(_ text: TextTemplate) -> String {
        text.parts.map { part in
            switch part {
            case .literal(let literal): literal
            case .expression(let expression): "{{ " + render(expression) + " }}"
            }
        }.joined()
    }

    static func render(_ expression: Expression) -> String {
        switch expression {
        case .number(let value): DecodeChecker.describe(value)
        case .string(let string): "\"" + string + "\""
        case .variable(let variable): variable.rawValue
        case .state(let path): "state." + path.joined(separator: ".")
        case .input(let path): "input." + path.joined(separator: ".")
        case .attributes(let path): "attributes." + path.joined(separator: ".")
        case .negate(let operand): "-" + render(operand)
        case .binary(let op, let lhs, let rhs): render(lhs) + " " + op.symbol + " " + render(rhs)
        case .random(let a, let b, _): "random(" + render(a) + ", " + render(b) + ")"
        case .pick(let choices, _): "pick(" + choices.map(render).joined(separator: ", ") + ")"
        }
    }
}
