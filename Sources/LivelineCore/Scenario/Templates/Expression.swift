/// The expression inside a `{{ }}` template.
///
/// The language is small on purpose: numbers, strings, names (`n`, `minute`, `second`,
/// `activity`, `index`, `state.<field>`, `input.<field>`), `+ - * / %`, parentheses, and the
/// seeded functions `random(a, b)` and `pick(x, y, …)`. `+` joins strings when either side is one.
/// `/` between two whole numbers divides whole numbers (`7 / 2` is `3`) and any decimal makes the
/// result decimal, except in a field the first content-state declares as a decimal (`0.0`):
/// there `/` always divides as decimals (`DeclaredArithmetic`), so `random(1, 40) / 10` gives
/// `0.1`…`4.0`, as the app's `Double` expects.
public indirect enum Expression: Sendable, Hashable {
    /// A number literal (an `int` or a `double`).
    case number(StateValue)
    /// A quoted string literal.
    case string(String)
    /// A name bound by the moment the beat plays: `n`, `minute`, `activity`…
    case variable(Variable)
    /// `state.a.b`: the current content-state value at that path.
    case state([String])
    /// `input.a.b`: a field of the webhook body that triggered the beat.
    case input([String])
    /// `attributes.a.b`: a static attribute, where a template may read them (an `android:` value).
    case attributes([String])
    /// `-x`.
    case negate(Expression)
    /// `x op y`.
    case binary(BinaryOperator, Expression, Expression)
    /// `random(a, b)`: a seeded integer in `a...b`. `site` tells call sites apart.
    case random(Expression, Expression, site: Int)
    /// `pick(x, y, …)`: a seeded choice. `site` tells call sites apart.
    case pick([Expression], site: Int)

    /// A name an expression may read, bound when the beat plays.
    public enum Variable: String, Sendable, Hashable, CaseIterable {
        /// The occurrence number of a repeating beat, from 1.
        case n
        /// Whole minutes since the activity started.
        case minute
        /// Whole seconds since the activity started.
        case second
        /// The activity's name.
        case activity
        /// The activity's copy number in a load test, from 0.
        case index
    }

    /// An arithmetic operator between two expressions.
    public enum BinaryOperator: Sendable, Hashable {
        /// `+`: a sum, or strings joined when either side is one.
        case add
        /// `-`.
        case subtract
        /// `*`.
        case multiply
        /// `%`: the remainder of a whole-number division.
        case remainder
        /// `/` as written: whole numbers divide as whole numbers.
        case divide
        /// `/` in a field declared as a decimal: always a decimal result.
        case decimalDivide

        /// How the operator is written.
        public var symbol: String {
            switch self {
            case .add: "+"
            case .subtract: "-"
            case .multiply: "*"
            case .divide, .decimalDivide: "/"
            case .remainder: "%"
            }
        }
    }

    /// Every name a template may use, for "did you mean" hints and messages.
    public static let knownNames =
        Variable.allCases.map(\.rawValue) + ["state", "input", "attributes", "random", "pick"]
}

/// What an expression is evaluated against: the moment, the activity and its state.
public struct EvaluationContext {
    /// The occurrence number of a repeating beat, from 1.
    public var n: Int
    /// Story time since the activity started.
    public var elapsed: Millis
    /// The activity's name, for `activity`.
    public var activity: String
    /// The activity's copy number in a load test, from 0, for `index`.
    public var index: Int
    /// Seeds `random` and `pick` for this occurrence.
    public var seed: UInt64
    /// The content-state before the beat, for `state.<field>`.
    public var state: StateObject
    /// The body of the webhook that triggered the beat, for `input.<field>`; nil for timeline beats.
    public var input: StateValue?
    /// The static attributes, for templates that may read them (`android:` values); nil elsewhere.
    public var attributes: StateObject?

    /// A context for one occurrence; `attributes` starts nil (set it where templates may read them).
    public init(
        n: Int, elapsed: Millis, activity: String, index: Int, seed: UInt64, state: StateObject, input: StateValue?
    ) {
        self.n = n
        self.elapsed = elapsed
        self.activity = activity
        self.index = index
        self.seed = seed
        self.state = state
        self.input = input
    }
}

extension Expression {
    /// The value of the expression. Anything undefined (a missing field, a division by zero,
    /// arithmetic on null) is `null`; the loader's checks make that rare in a valid file.
    public func evaluate(in context: EvaluationContext) -> StateValue {
        switch self {
        case .number(let value): return value
        case .string(let text): return .string(text)
        case .variable(let variable):
            switch variable {
            case .n: return .int(context.n)
            case .minute: return .int(Int(context.elapsed / 60_000))
            case .second: return .int(Int(context.elapsed / 1000))
            case .activity: return .string(context.activity)
            case .index: return .int(context.index)
            }
        case .state(let path): return context.state.value(at: path) ?? .null
        case .input(let path):
            guard let input = context.input else { return .null }
            return input.value(at: path) ?? .null
        case .attributes(let path): return context.attributes?.value(at: path) ?? .null
        case .negate(let operand):
            switch operand.evaluate(in: context) {
            case .int(let i): return .int(0 &- i)
            case .double(let d): return .double(-d)
            default: return .null
            }
        case .binary(let op, let lhs, let rhs):
            return Self.apply(op, lhs.evaluate(in: context), rhs.evaluate(in: context))
        case .random(let low, let high, let site):
            guard case .int(let a) = low.evaluate(in: context), case .int(let b) = high.evaluate(in: context) else {
                return .null
            }
            let (lo, hi) = a <= b ? (a, b) : (b, a)
            let span = UInt64(hi - lo) &+ 1
            let draw = SeededRandom.hash(context.seed, 0x7261_6e64, UInt64(site))
            return .int(lo + Int(span == 0 ? draw : draw % span))
        case .pick(let choices, let site):
            guard !choices.isEmpty else { return .null }
            let draw = SeededRandom.hash(context.seed, 0x7069_636b, UInt64(site))
            return choices[Int(draw % UInt64(choices.count))].evaluate(in: context)
        }
    }

    static func apply(_ op: BinaryOperator, _ lhs: StateValue, _ rhs: StateValue) -> StateValue {
        if op == .add, lhs.isString || rhs.isString {
            return .string(lhs.templateText + rhs.templateText)
        }
        if op == .decimalDivide {
            guard let a = lhs.numeric, let b = rhs.numeric, b != 0 else { return .null }
            return .double(a / b)
        }
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            switch op {
            case .add: return .int(a &+ b)
            case .subtract: return .int(a &- b)
            case .multiply: return .int(a &* b)
            case .divide, .decimalDivide: return b == 0 ? .null : .int(a / b)
            case .remainder: return b == 0 ? .null : .int(a % b)
            }
        default:
            guard let a = lhs.numeric, let b = rhs.numeric else { return .null }
            switch op {
            case .add: return .double(a + b)
            case .subtract: return .double(a - b)
            case .multiply: return .double(a * b)
            case .divide, .decimalDivide: return b == 0 ? .null : .double(a / b)
            case .remainder: return b == 0 ? .null : .double(a.truncatingRemainder(dividingBy: b))
            }
        }
    }
}

extension TextTemplate {
    /// The text with every expression replaced by its value.
    public func evaluate(in context: EvaluationContext) -> String {
        if let constant { return constant }
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text): out += text
            case .expression(let expression): out += expression.evaluate(in: context).templateText
            }
        }
        return out
    }
}

extension StateValue {
    var isString: Bool {
        if case .string = self { return true }
        return false
    }

    /// The value as a number, for arithmetic.
    var numeric: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// How a value reads inside a text template: strings bare, numbers as written, null empty.
    public var templateText: String {
        switch self {
        case .null: ""
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .string(let s): s
        case .date(let unix): String(Double(ReferenceDate.millis(fromUnix: unix)) / 1000)
        case .dateRange, .array, .object:
            String(
                decoding: {
                    var writer = JSONWriter(capacity: 64)
                    writer.value(self)
                    return writer.bytes
                }(), as: UTF8.self)
        }
    }

    /// The value at a key path inside objects, or nil when a key is missing.
    public func value(at path: [String]) -> StateValue? {
        var current = self
        for key in path {
            guard case .object(let object) = current, let next = object[key] else { return nil }
            current = next
        }
        return current
    }
}

extension StateObject {
    /// The value at a key path, or nil when a key is missing.
    public func value(at path: [String]) -> StateValue? {
        guard let first = path.first, let top = self[first] else { return nil }
        return top.value(at: Array(path.dropFirst()))
    }
}
