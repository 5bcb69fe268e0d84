extension ValueTemplate {
    /// The value at the moment a beat happens (`beatTime`). Relative dates count from the beat
    /// (or the activity start), divided by the story's speed.
    func evaluate(in context: EvaluationContext, beatTime: Millis, startTime: Millis, speed: Double) -> StateValue {
        switch self {
        case .literal(let value):
            return value
        case .date(let date):
            return .date(date.resolve(beatTime: beatTime, startTime: startTime, speed: speed))
        case .dateRange(let lower, let upper):
            return .dateRange(
                lower.resolve(beatTime: beatTime, startTime: startTime, speed: speed),
                upper.resolve(beatTime: beatTime, startTime: startTime, speed: speed)
            )
        case .expression(let expression):
            return expression.evaluate(in: context)
        case .text(let text):
            return .string(text.evaluate(in: context))
        case .object(let fields):
            return .object(
                StateObject(
                    keysAndValues: fields.map {
                        ($0.key, $0.value.evaluate(in: context, beatTime: beatTime, startTime: startTime, speed: speed))
                    }))
        case .array(let items):
            return .array(
                items.map { $0.evaluate(in: context, beatTime: beatTime, startTime: startTime, speed: speed) })
        }
    }
}

extension DateTemplate {
    func resolve(beatTime: Millis, startTime: Millis, speed: Double) -> Millis {
        func scaled(_ millis: Millis) -> Millis { speed == 1 ? millis : Millis((Double(millis) / speed).rounded()) }
        switch self {
        case .afterBeat(let offset): return beatTime + scaled(offset)
        case .afterStart(let offset): return startTime + scaled(offset)
        case .absolute(let instant): return instant
        }
    }
}

extension Alert<TextTemplate> {
    /// The alert with its templates evaluated.
    func resolve(in context: EvaluationContext) -> Alert<String> {
        map { $0.evaluate(in: context) }
    }
}

extension StateObject {
    /// An object from keys and values in order.
    public init(keysAndValues pairs: [(String, StateValue)]) {
        self.init(pairs)
    }

    /// Sets the value of top-level field `field`, or of a field nested below it at `rest`.
    /// Returns whether the value changed.
    mutating func set(_ value: StateValue, field: Int, rest: [String]) -> Bool {
        guard field < values.count else { return false }
        if rest.isEmpty {
            if values[field] == value { return false }
            values[field] = value
            return true
        }
        var nested = values[field]
        values[field] = .null
        let changed = nested.set(value, at: rest[...])
        values[field] = nested
        return changed
    }
}

extension StateValue {
    /// Sets the value at a key path inside objects. Returns whether it changed.
    mutating func set(_ value: StateValue, at path: ArraySlice<String>) -> Bool {
        guard let key = path.first else {
            if self == value { return false }
            self = value
            return true
        }
        guard case .object(var object) = self, let index = object.index(of: key) else { return false }
        self = .null
        var child = object.values[index]
        object.values[index] = .null
        let changed = child.set(value, at: path.dropFirst())
        object.values[index] = child
        self = .object(object)
        return changed
    }
}
