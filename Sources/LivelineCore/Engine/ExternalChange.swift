/// A change to a running activity that comes from outside its story: a webhook, a feed, an
/// operator. The bridge maps events onto these when no beat of the scenario says it all.
///
/// It goes through the same rules as a beat (coalescing, one push a second, the budget, stale
/// dates, relevance, the end), so an external change can never break what the engine promises.
/// A change is checked against the activity's content-state before anything is applied: a field
/// the state does not have, or a value of another JSON type, would not decode on the device.
public struct ExternalChange: Sendable, Hashable {
    /// One field to set: a key path into the content-state (`["eta"]`, `["courier", "name"]`).
    public struct FieldChange: Sendable, Hashable {
        /// The keys from the top of the content-state down to the field.
        public var path: [String]
        /// The new value; its JSON type must be the field's.
        public var value: StateValue

        /// A change setting the field at `path` to `value`.
        public init(_ path: [String], _ value: StateValue) {
            self.path = path
            self.value = value
        }
    }

    /// Names the change in push reasons: `event courier-arrived`.
    public var label: String
    /// The fields to set, in order; later ones win on the same path.
    public var set: [FieldChange]
    /// The new `relevance-score`, carried by every push from now on.
    public var relevance: Double?
    /// An alert to show with the update; nil for a silent one.
    public var alert: Alert<String>?
    /// `.high` asks for priority 10 (charged against the budget); `.low` or nil for 5.
    public var priority: Priority?
    /// Ends the activity, with `dismissal` (nil: the policy's).
    public var end: Bool
    /// When the ended activity leaves the Lock Screen, with ``end``; nil takes the policy's.
    public var dismissal: Dismissal?

    /// A change named `label`; every part defaults to "leave as it is".
    public init(
        label: String, set: [FieldChange] = [], relevance: Double? = nil, alert: Alert<String>? = nil,
        priority: Priority? = nil, end: Bool = false, dismissal: Dismissal? = nil
    ) {
        self.label = label
        self.set = set
        self.relevance = relevance
        self.alert = alert
        self.priority = priority
        self.end = end
        self.dismissal = dismissal
    }

    /// Ends the activity now, with what it shows and `dismissal`.
    public static func endNow(label: String = "end", dismissal: Dismissal? = nil) -> ExternalChange {
        ExternalChange(label: label, end: true, dismissal: dismissal)
    }
}

/// Why an ``ExternalChange`` cannot be applied, said so the sender can fix it.
public enum ExternalChangeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The content-state has no such field.
    case unknownField(path: String, activity: String)
    /// The value's JSON type differs from the field's, so the app would fail to decode it.
    case typeMismatch(path: String, expected: ValueType, got: ValueType, activity: String)

    public var description: String {
        switch self {
        case .unknownField(let path, let activity):
            "'\(activity)' has no content-state field '\(path)'"
        case .typeMismatch(let path, let expected, let got, let activity):
            "'\(activity)': field '\(path)' is \(expected), not \(got): the app would fail to decode it"
        }
    }
}

extension ActivityEngine {
    /// What ``apply(_:at:writer:sink:advancing:)`` did with a change.
    public enum ChangeOutcome: Sendable, Hashable {
        /// The change was taken in; a push will carry it.
        case applied
        /// The change changed nothing, so nothing will be sent.
        case unchanged
        /// The activity has not started; the change was ignored.
        case notStarted
        /// The activity has ended; the change was ignored.
        case ended
        /// The change does not fit the content-state; nothing was applied.
        case invalid(ExternalChangeError)
    }

    /// Applies an external change at `now`, after playing everything due before it. With
    /// `advancing` false, nothing is played before or after (see ``trigger(_:input:at:writer:sink:advancing:)``).
    @discardableResult
    public mutating func apply<Sink: PushSink>(
        _ change: ExternalChange, at now: Millis, writer: inout JSONWriter, sink: inout Sink, advancing: Bool = true
    ) -> ChangeOutcome {
        if advancing { advance(to: now, writer: &writer, sink: &sink) }
        switch lifecycle {
        case .ended: return .ended
        case .pending: return .notStarted
        case .active: if endDecided { return .ended }
        }
        if let problem = check(change) { return .invalid(problem) }
        var changed = false
        for field in change.set {
            guard let index = state.index(of: field.path[0]) else { continue }
            if state.set(field.value, field: index, rest: Array(field.path.dropFirst())) { changed = true }
        }
        if let relevance = change.relevance, relevance != self.relevance {
            self.relevance = relevance
            changed = true
        }
        if change.alert != nil || change.end { changed = true }
        guard changed else { return .unchanged }
        beatCount += 1
        merge(
            at: now, beat: -1, n: 0, high: change.priority == .high, alert: change.alert, start: nil,
            end: change.end, dismissal: change.dismissal
        )
        pending.externalLabel = change.label
        if advancing { advance(to: now, writer: &writer, sink: &sink) }
        return .applied
    }

    /// The first field of `change` that the content-state cannot take, if any. A field that
    /// started as `null` (an optional) takes any type.
    func check(_ change: ExternalChange) -> ExternalChangeError? {
        for field in change.set {
            let path = field.path.joined(separator: ".")
            guard !field.path.isEmpty, let current = Self.value(at: field.path[...], in: state) else {
                return .unknownField(path: path, activity: program.name)
            }
            let expected = current.type
            if expected != .null, !expected.accepts(field.value.type) {
                return .typeMismatch(path: path, expected: expected, got: field.value.type, activity: program.name)
            }
        }
        return nil
    }

    private static func value(at path: ArraySlice<String>, in object: StateObject) -> StateValue? {
        guard let key = path.first, let value = object[key] else { return nil }
        let rest = path.dropFirst()
        if rest.isEmpty { return value }
        guard case .object(let nested) = value else { return nil }
        return Self.value(at: rest, in: nested)
    }
}
