import Foundation
import Liveline

/// Writes recorded activities as a scenario file: plain YAML that `liveline validate` accepts
/// and `plan`, `play` and `load` play, with a comment above each beat naming the event it came
/// from.
///
/// Values are written so they read back as the same JSON types: strings double-quoted,
/// decimals always with a point, dates as `!date start+…` (relative to the activity's start,
/// so a replay moves them with it), and text holding `{{` or `}}` as templates that yield those
/// braces. Each activity carries its whole policy, so the file plays as the bridge's did
/// whatever the defaults.
struct RecordingYAML {
    /// What the file says about itself in its header comment.
    struct Header {
        var store: String
        var recordedAt: Millis
        var selection: String
    }

    var activities: [RecordedActivity]
    var header: Header
    /// The bundle id the pushes carried.
    var bundleID: String
    /// When the first activity started: `liveline plan --start` this reproduces the timestamps.
    var start: Millis

    func text() -> String {
        var lines: [String] = [
            "# yaml-language-server: $schema=liveline.schema.json",
            "#",
            "# Recorded by `liveline bridge record` at \(UTCTime.format(header.recordedAt)) from \(header.store):",
            "# \(header.selection).",
            "# The bridge's own pushes, with their timestamps: liveline plan --start \(UTCTime.format(start)) FILE",
            "# `play` and `load` replay the story from now; its dates move with it.",
            "",
            "liveline: 1",
            "name: \(Self.string(name))",
            "bundle-id: \(Self.string(bundleID))",
            "seed: 1",
            "",
            "activities:",
        ]
        var names: Set<String> = []
        for activity in activities {
            lines += self.activity(activity, name: Self.uniqueName(for: activity.activityKey, taken: &names))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private var name: String {
        let keys = activities.map(\.activityKey)
        return keys.count == 1 ? "Recorded: \(keys[0])" : "Recorded: \(keys.count) activities from \(keys[0]) on"
    }

    private func activity(_ activity: RecordedActivity, name: String) -> [String] {
        let indent = "      "
        var lines = [
            "",
            "  # '\(activity.activityKey)', following source '\(activity.source)' (\(activity.scenario.file.split(separator: "/").last.map(String.init) ?? activity.scenario.file)), started \(UTCTime.format(activity.start))",
            "  - name: \(name)",
            "    at: \(Self.duration(activity.start - start))",
            "    attributes-type: \(Self.string(activity.spec.attributesType))",
            "    attributes:\(Self.block(activity.attributes, indent: indent, start: activity.start))",
            "    content-state:\(Self.block(activity.initialState, indent: indent, start: activity.start))",
        ]
        if let relevance = activity.relevance { lines.append("    relevance: \(Self.number(relevance))") }
        if let android = activity.spec.android { lines += Self.android(android) }
        lines.append("    policy:")
        lines += Self.policy(activity.spec.policy).map { indent + $0 }
        let beats = activity.beats
        guard !activity.entries.isEmpty else { return lines }
        lines.append(beats.isEmpty ? "    beats: []" : "    beats:")
        var ids: [String: Int] = [:]
        for entry in activity.entries {
            switch entry {
            case .note(let event, let text):
                lines.append("      # \(Self.origin(event)): \(Self.comment(text))")
            case .beat(let beat):
                lines.append("      # \(Self.origin(beat.event))")
                lines += self.beat(
                    beat, id: Self.uniqueID(for: beat.event.event.eventType, taken: &ids), start: activity.start)
            }
        }
        return lines
    }

    private func beat(_ beat: RecordedBeat, id: String, start: Millis) -> [String] {
        let indent = "          "
        var lines = [
            "      - id: \(Self.string(id))",
            "        at: \(Self.duration(beat.offset))",
            "        priority: \(beat.priority.rawValue)",
        ]
        if let start = beat.start { lines.append("        start: \(Self.start(start))") }
        if let relevance = beat.relevance { lines.append("        relevance: \(Self.number(relevance))") }
        if let staleAfter = beat.staleAfter {
            lines.append("        stale-after: \(staleAfter.map(Self.duration) ?? "none")")
        }
        if beat.set.count > 0 { lines.append("        set:\(Self.block(beat.set, indent: indent, start: start))") }
        if let alert = beat.alert {
            lines.append("        alert:")
            if let title = alert.title { lines.append("\(indent)title: \(Self.alertText(title))") }
            if let body = alert.body { lines.append("\(indent)body: \(Self.alertText(body))") }
            if let sound = alert.sound { lines.append("\(indent)sound: \(Self.string(sound))") }
        }
        if let end = beat.end {
            lines.append("        end: \(end.map { "{ dismissal: \(Self.dismissal($0)) }" } ?? "true")")
        }
        return lines
    }

    // MARK: Pieces

    /// `# 2026-11-21T18:06:12.184Z doordash DASHER_CONFIRMED, event 1181468017`.
    /// The story's `android:` block, as its scenario file writes it (comments included), so the
    /// recording plays to Android phones too (`play --platform android`, `plan`); its templates
    /// read the same content-state. Copied from the file: the lines of the block's mapping,
    /// indented for the recording; a block written inline on one line is copied as it is.
    static func android(_ spec: AndroidLiveUpdate) -> [String] {
        let location = spec.location
        guard let text = try? String(contentsOfFile: location.file, encoding: .utf8) else {
            return ["    # android: not copied: \(location.file) cannot be read"]
        }
        let fileLines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard location.line >= 1, location.line <= fileLines.count else {
            return ["    # android: not copied: \(location) is not in the file"]
        }
        let first = fileLines[location.line - 1]
        let indent = location.column - 1
        let leading = first.prefix { $0 == " " }.count
        guard leading == indent else {
            // `android: {…}` on one line: the value from its column on.
            let value = String(first.dropFirst(max(0, location.column - 1)))
            return value.hasPrefix("{") && value.contains("}")
                ? ["    android: " + value] : ["    # android: not copied: written across lines inline at \(location)"]
        }
        var block: [String] = []
        for line in fileLines[(location.line - 1)...] {
            let trimmed = line.drop { $0 == " " }
            if !trimmed.isEmpty, line.count - trimmed.count < indent { break }
            block.append(trimmed.isEmpty ? "" : "      " + line.dropFirst(indent))
        }
        while block.last?.isEmpty == true { block.removeLast() }
        return ["    android:"] + block
    }

    static func origin(_ event: DispatchedEvent) -> String {
        let received = event.event.receivedAt
        return
            "received \(UTCTime.format(received)): \(event.event.source) \(comment(event.event.eventType)), event \(comment(event.event.eventID))"
    }

    /// Text safe inside a comment: one line.
    static func comment(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 }.prefix(200))
    }

    static func policy(_ policy: Policy) -> [String] {
        [
            "priority: \(policy.priority.rawValue)",
            "budget: \(policy.budget)",
            "frequent-updates: \(policy.frequentUpdates)",
            "over-budget: \(policy.overBudget.rawValue)",
            "min-interval: \(duration(policy.minInterval))",
            "stale-after: \(policy.staleAfter.map(duration) ?? "none")",
            "heartbeat: \(duration(policy.heartbeat))",
            "dismissal: \(dismissal(policy.dismissal))",
            "expiration: \(duration(policy.expiration))",
            "max-duration: \(duration(policy.maxDuration))",
        ]
    }

    static func dismissal(_ dismissal: Dismissal) -> String {
        switch dismissal {
        case .default: "default"
        case .immediate: "immediate"
        case .after(let millis): duration(millis)
        }
    }

    static func start(_ start: StartSpec) -> String {
        switch start {
        case .plain: "true"
        case .inputPushToken: "{ input-push-token: true }"
        case .inputPushChannel(let channel): "{ input-push-channel: \(string(channel)) }"
        }
    }

    static func alertText(_ text: Alert<String>.Text) -> String {
        switch text {
        case .plain(let text): string(text)
        case .localized(let key, let args):
            "{ loc-key: \(string(key))\(args.isEmpty ? "" : ", loc-args: [\(args.map(string).joined(separator: ", "))]") }"
        }
    }

    /// A mapping's fields on lines of their own below its key (or `{}` after it when empty).
    static func block(_ object: StateObject, indent: String, start: Millis) -> String {
        guard object.count > 0 else { return " {}" }
        return zip(object.keys, object.values).map { "\n\(indent)\(key($0)): \(value($1, start: start))" }.joined()
    }

    /// A value in flow style, read back as the same JSON type.
    static func value(_ value: StateValue, start: Millis) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): self.number(number, decimal: true)
        case .string(let text): string(text)
        case .date(let millis): "!date \(relative(millis, to: start))"
        case .dateRange(let lower, let upper):
            "!daterange [\(relative(lower, to: start)), \(relative(upper, to: start))]"
        case .array(let items): "[\(items.map { self.value($0, start: start) }.joined(separator: ", "))]"
        case .object(let object):
            "{\(zip(object.keys, object.values).map { " \(key($0)): \(self.value($1, start: start))" }.joined(separator: ","))\(object.count > 0 ? " " : "")}"
        }
    }

    /// `start+1h05m`, `start-5m`, `start`.
    static func relative(_ millis: Millis, to start: Millis) -> String {
        let offset = millis - start
        if offset == 0 { return "start" }
        return offset > 0 ? "start+\(duration(offset))" : "start-\(duration(-offset))"
    }

    /// A duration the scenario reader reads back to the millisecond: `1h5m10s250ms`, `0`.
    static func duration(_ millis: Millis) -> String {
        guard millis > 0 else { return "0" }
        let parts: [(Millis, String)] = [
            (millis / 3_600_000, "h"), (millis / 60_000 % 60, "m"), (millis / 1000 % 60, "s"), (millis % 1000, "ms"),
        ]
        return parts.filter { $0.0 > 0 }.map { "\($0.0)\($0.1)" }.joined()
    }

    /// A number; with `decimal`, always with a point (or an exponent), so `1.0` stays a Double.
    static func number(_ value: Double, decimal: Bool = false) -> String {
        if !decimal, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = "\(value)"
        if !text.contains(".") {
            if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
                text.insert(contentsOf: ".0", at: e)
            } else {
                text += ".0"
            }
        }
        return text
    }

    /// A content-state or attributes key: bare when it is a plain word, else quoted.
    static func key(_ key: String) -> String {
        let plain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_"
            }
            && !(key.first?.isNumber ?? true)
            && !["true", "false", "null", "yes", "no", "on", "off", "y", "n"].contains(key.lowercased())
        return plain ? key : string(key)
    }

    /// Text as a YAML double-quoted string; `{` and `}` become templates yielding them when the
    /// text holds `{{` or `}}`, which the scenario reader would take for a template.
    static func string(_ text: String) -> String {
        var out = "\""
        let braces = text.contains("{{") || text.contains("}}")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "{" where braces: out += "{{ \\\"{\\\" }}"
            case "}" where braces: out += "{{ \\\"}\\\" }}"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                    || scalar.value == 0xFEFF
                    || scalar.value == 0x2028 || scalar.value == 0x2029
                {
                    out += String(format: "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// An activity name from a key: lower-case letters, digits, `-`, `_` and `.`; unique.
    static func uniqueName(for key: String, taken: inout Set<String>) -> String {
        var base = String(
            key.lowercased().unicodeScalars.map { scalar -> Character in
                let allowed =
                    ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
                    || "-_.".unicodeScalars.contains(scalar)
                return allowed ? Character(scalar) : "-"
            })
        base = base.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        if base.isEmpty { base = "activity" }
        var name = base
        var n = 2
        while taken.contains(name) {
            name = "\(base)-\(n)"
            n += 1
        }
        taken.insert(name)
        return name
    }

    /// A beat id from an event type, numbered when the type repeats: `score_change-2`.
    static func uniqueID(for type: String, taken: inout [String: Int]) -> String {
        let base = String(type.map { $0.isLetter || $0.isNumber || "-_./".contains($0) ? $0 : "-" }).prefix(60)
        let count = (taken[String(base)] ?? 0) + 1
        taken[String(base)] = count
        return count == 1 ? String(base) : "\(base)-\(count)"
    }
}
