/// Makes `/` follow the type a field declares.
///
/// A field's JSON type is fixed by the first content-state (`speed: 0.0` declares a decimal, as the
/// app's `Double`). Template arithmetic on whole numbers stays whole (`7 / 2` is `3`), which is
/// right for an `Int` field and silently wrong for a `Double` one: `{{ random(1, 40) / 10 }}` would
/// give `0`…`4`. In a patch of a field declared as a decimal, every `/` of the value's expression
/// divides as decimals instead, so the same template gives `0.1`…`4.0`. Division inside text
/// templates and `Int` fields is unchanged; write `/ 10.0` there for a decimal.
package enum DeclaredArithmetic {
    /// The activity with every patch of a decimal field computing its divisions as decimals.
    package static func apply(to activity: ActivitySpec) -> ActivitySpec {
        let declared = StaticType(of: activity.contentState, state: .object([]))
        guard declared.hasDecimal else { return activity }
        var activity = activity
        for b in activity.beats.indices {
            for p in activity.beats[b].patch.indices {
                let entry = activity.beats[b].patch[p]
                guard let type = declared.type(at: entry.path) else { continue }
                activity.beats[b].patch[p].value = rewrite(entry.value, declared: type)
            }
        }
        return activity
    }

    /// `value` with decimal division wherever `declared` is a decimal.
    static func rewrite(_ value: ValueTemplate, declared: StaticType) -> ValueTemplate {
        switch (value, declared) {
        case (.expression(let expression), .scalar(.double)):
            return .expression(expression.dividingAsDecimals)
        case (.object(let fields), .object):
            return .object(
                fields.map { field in
                    var field = field
                    if let type = declared.type(at: [field.key]) { field.value = rewrite(field.value, declared: type) }
                    return field
                })
        default:
            return value
        }
    }
}

extension Expression {
    /// The same expression with each `/` that yields its value dividing as decimals. The bounds
    /// of `random(a, b)` stay whole numbers: they are arguments, not the value.
    var dividingAsDecimals: Expression {
        switch self {
        case .binary(let op, let lhs, let rhs):
            return .binary(op == .divide ? .decimalDivide : op, lhs.dividingAsDecimals, rhs.dividingAsDecimals)
        case .negate(let operand):
            return .negate(operand.dividingAsDecimals)
        case .pick(let choices, let site):
            return .pick(choices.map(\.dividingAsDecimals), site: site)
        case .number, .string, .variable, .state, .input, .attributes, .random:
            return self
        }
    }
}

extension StaticType {
    /// Whether any field, at any depth, is a decimal.
    fileprivate var hasDecimal: Bool {
        switch self {
        case .scalar(let type): type == .double
        case .object(let fields): fields.contains { $0.type.hasDecimal }
        case .unknown, .array: false
        }
    }
}
