import Liveline

/// The checks that find pushes APNs accepts but the device would not render.
///
/// Each returns human-readable reasons, empty when the push is fine. They mirror how the app
/// decodes `content-state` with a default `JSONDecoder` (docs/apns.md §2.1): keys are Swift property
/// names exactly, `Date`s are reference-date seconds, an `Int` field rejects a decimal, a
/// non-optional field rejects `null` or absence.
enum DecodeChecks {
    /// A `Date` field holding more than this many seconds was almost surely sent as UNIX seconds:
    /// reference-date seconds stay below it until 2048.
    static let unixSecondsThreshold: Double = 1.5e9
    /// How close to the current UNIX time an untyped number must be to look like a UNIX date.
    static let unixProximitySeconds: Double = 2 * 365 * 86_400

    /// Checks a content-state against the shape the app decodes.
    static func contentState(_ value: JSONValue, shape: ContentShape, now: Millis) -> [String] {
        var reasons: [String] = []
        check(value, against: shape, path: .root, now: now, reasons: &reasons)
        return reasons
    }

    /// Where a field is, formatted only when a reason mentions it: most pushes pass, and
    /// building `content-state.a.b` for every field was measurable.
    ///
    /// A chain of frames on the stack, each pointing at its parent: descending a level costs no
    /// allocation (a list of components was the one allocation of checking a content-state).
    /// A path lives only inside the ``appending(_:_:)`` call that made it.
    struct FieldPath: CustomStringConvertible {
        enum Component {
            case key(String)
            case index(Int)
        }

        private let component: Component?
        private let parent: UnsafePointer<FieldPath>?

        /// `content-state` itself.
        static var root: FieldPath { FieldPath(component: nil, parent: nil) }

        private init(component: Component?, parent: UnsafePointer<FieldPath>?) {
            self.component = component
            self.parent = parent
        }

        /// Runs `body` with this path one component deeper.
        func appending<Result>(_ component: Component, _ body: (FieldPath) -> Result) -> Result {
            withUnsafePointer(to: self) { body(FieldPath(component: component, parent: $0)) }
        }

        var description: String {
            var components: [Component] = []
            var frame: FieldPath? = self
            while let current = frame {
                if let component = current.component { components.append(component) }
                frame = current.parent?.pointee
            }
            var text = "content-state"
            for component in components.reversed() {
                switch component {
                case .key(let key): text += ".\(key)"
                case .index(let index): text += "[\(index)]"
                }
            }
            return text
        }
    }

    /// Whether a number in a field not known to be a date looks like a UNIX-seconds timestamp.
    static func looksLikeUnixNow(_ seconds: Double, now: Millis) -> Bool {
        seconds > unixSecondsThreshold && abs(seconds - Double(now) / 1000) < unixProximitySeconds
    }

    private static func unixDateReason(_ path: FieldPath, _ seconds: Double) -> String {
        "\(path) is \(formatted(seconds)), which looks like UNIX seconds: a Date decodes it as seconds since 2001, "
            + "about 31 years in the future (send UNIX seconds - 978307200)"
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 9e15 ? String(Int64(seconds)) : String(seconds)
    }

    private static func check(
        _ value: JSONValue?, against shape: ContentShape, path: FieldPath, now: Millis, reasons: inout [String]
    ) {
        switch shape {
        case .unknownOptional:
            if let value, let number = value.numberValue, looksLikeUnixNow(number, now: now) {
                reasons.append(unixDateReason(path, number))
            }
        case .optional(let inner):
            guard let value else { return }
            if case .null = value { return }
            check(value, against: inner, path: path, now: now, reasons: &reasons)
        case .scalar(let type):
            guard let value else {
                reasons.append("\(path) is missing; the app's ContentState requires it")
                return
            }
            checkScalar(value, type: type, path: path, now: now, reasons: &reasons)
        case .array(let element):
            guard let value else {
                reasons.append("\(path) is missing; the app's ContentState requires it")
                return
            }
            guard case .array(let values) = value else {
                reasons.append(typeChange(path, was: .array, now: value.valueType))
                return
            }
            let elementShape = element ?? values.first.map(ContentShape.init)
            if let elementShape {
                for (index, item) in values.enumerated() {
                    path.appending(.index(index)) {
                        check(item, against: elementShape, path: $0, now: now, reasons: &reasons)
                    }
                }
            }
        case .object(let keys, let fields):
            guard let value else {
                reasons.append("\(path) is missing; the app's ContentState requires it")
                return
            }
            guard case .object(let object) = value else {
                reasons.append(typeChange(path, was: .object, now: value.valueType))
                return
            }
            checkObject(object, keys: keys, fields: fields, path: path, now: now, reasons: &reasons)
        }
    }

    private static func checkObject(
        _ object: JSONObject, keys: [String], fields: [ContentShape], path: FieldPath, now: Millis,
        reasons: inout [String]
    ) {
        for (index, (key, field)) in zip(keys, fields).enumerated() {
            // Senders usually keep the key order of the first state: try the same position first.
            let value = index < object.keys.count && object.keys[index] == key ? object.values[index] : object[key]
            if value == nil,
                let snake = object.keys.first(where: { $0.utf8.contains(UInt8(ascii: "_")) && camelCase($0) == key })
            {
                reasons.append(
                    "\(path).\(snake) is snake_case; the app expects \(key) (keys are the Swift property names, no conversion)"
                )
                continue
            }
            path.appending(.key(key)) { check(value, against: field, path: $0, now: now, reasons: &reasons) }
        }
    }

    private static func checkScalar(
        _ value: JSONValue, type: ValueType, path: FieldPath, now: Millis, reasons: inout [String]
    ) {
        switch type {
        case .date:
            switch value {
            case .int, .double:
                if let seconds = value.numberValue, seconds > unixSecondsThreshold {
                    reasons.append(unixDateReason(path, seconds))
                }
            case .string:
                reasons.append(
                    "\(path) is a string; a Date decodes only from a number of reference-date seconds, not ISO-8601 text"
                )
            case .null:
                reasons.append("\(path) is null; it is a Date (not optional)")
            default:
                reasons.append(typeChange(path, was: .date, now: value.valueType))
            }
        case .dateRange:
            guard case .array(let bounds) = value, bounds.count == 2,
                let lower = bounds[0].numberValue, let upper = bounds[1].numberValue
            else {
                reasons.append("\(path) must be [lower, upper] in reference-date seconds for a ClosedRange<Date>")
                return
            }
            if lower > upper { reasons.append("\(path) has lower > upper: ClosedRange<Date> fails to decode") }
            for bound in [lower, upper] where bound > unixSecondsThreshold {
                reasons.append(unixDateReason(path, bound))
                break
            }
        default:
            let actual = value.valueType
            guard type.accepts(actual) else {
                if actual == .null {
                    reasons.append("\(path) is null; it was \(type) (not optional)")
                } else {
                    reasons.append(typeChange(path, was: type, now: actual))
                }
                return
            }
            if let number = value.numberValue, looksLikeUnixNow(number, now: now) {
                reasons.append(unixDateReason(path, number))
            }
        }
    }

    private static func typeChange(_ path: FieldPath, was: ValueType, now: ValueType) -> String {
        "\(path) was \(was), now \(now): the app's decoder fails"
    }

    /// `some_field_name` → `someFieldName`.
    static func camelCase(_ key: String) -> String {
        var out = ""
        var upperNext = false
        for character in key {
            if character == "_" {
                upperNext = !out.isEmpty
                continue
            }
            out.append(upperNext ? Character(character.uppercased()) : character)
            upperNext = false
        }
        return out
    }
}
