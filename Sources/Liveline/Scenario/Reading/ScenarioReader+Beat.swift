import LivelineCore
import Yams

extension ScenarioReader {
    static let beatKeys = [
        "id", "at", "every", "from", "to", "count", "jitter", "chance", "set", "priority", "alert",
        "relevance", "stale-after", "start", "end",
    ]

    /// One entry of `beats:`. `state` is the activity's first content-state, which patches and
    /// `state.` templates are checked against. Returns nil, after reporting, when it is broken.
    mutating func beat(_ node: Node, state: ValueTemplate) -> BeatSpec? {
        let errorsBefore = log.errorCount
        guard let fields = fields(of: node, in: "beat", allowed: Self.beatKeys) else { return nil }
        let id = fields["id"].flatMap { string($0, "the beat id") }

        // When: once, repeatedly, or when triggered.
        var timing = BeatSpec.Timing.triggered
        if let at = fields["at"] {
            for key in ["every", "from", "to", "count"] where fields.has(key) {
                if let keyNode = fields.keyNode(key) {
                    log.error(
                        location(keyNode),
                        "'\(key)' belongs to repeating beats, but this beat happens once ('at'); remove one of them")
                }
            }
            timing = .at(duration(at, "the beat's time (at)") ?? 0)
        } else if let every = fields["every"] {
            let interval = duration(every, "the repeat interval (every)") ?? 1
            if interval <= 0 {
                log.error(location(every), "expected every as a duration of more than 0, found \(Self.describe(every))")
            }
            let from = fields["from"].flatMap { duration($0, "the first occurrence (from)") } ?? interval
            var through: Millis?
            if let to = fields["to"], let toValue = duration(to, "the last occurrence (to)") {
                if let count = fields.keyNode("count") {
                    log.error(location(count), "a repeating beat ends at 'to' or after 'count' occurrences, not both")
                }
                if toValue < from {
                    log.error(
                        location(to),
                        "'to' (\(DurationText.format(toValue))) is before 'from' (\(DurationText.format(from))); the beat would never happen"
                    )
                }
                through = toValue
            } else if let count = fields["count"], let countValue = integer(count, "count") {
                if countValue < 1 {
                    log.error(location(count), "expected count as 1 or more, found \(countValue)")
                } else {
                    through = from + Millis(countValue - 1) * max(1, interval)
                }
            }
            timing = .every(max(1, interval), from: from, through: through)
        } else {
            for key in ["from", "to", "count"] {
                if let keyNode = fields.keyNode(key) {
                    log.error(location(keyNode), "'\(key)' needs 'every': it belongs to repeating beats")
                }
            }
            if id == nil {
                log.error(
                    location(node),
                    "a beat needs 'at' (it happens once), 'every' (it repeats) or an 'id' (the bridge triggers it)")
            }
        }

        var beat = BeatSpec(id: id, timing: timing, location: location(node))
        let scope: TemplateScope
        switch timing {
        case .at:
            scope = TemplateScope(
                allowsN: false, allowsInput: false, state: state, place: "in a beat that happens once (at:)")
        case .every:
            scope = TemplateScope(
                allowsN: true, allowsInput: false, state: state, place: "in a repeating beat (every:)")
        case .triggered:
            scope = TemplateScope(
                allowsN: false, allowsInput: true, state: state, place: "in a beat the bridge triggers")
        }

        if let node = fields["jitter"], let value = duration(node, "jitter") { beat.jitter = value }
        if let node = fields["chance"], let value = number(node, "chance (a probability)") {
            if value < 0 || value > 1 {
                log.error(location(node), "expected chance as a probability from 0 to 1, found \(value)")
            }
            beat.chance = value
        }
        if let node = fields["set"] {
            if case .mapping = node {
                beat.patch = patch(node, state: state, prefix: [], scope: scope)
            } else {
                log.error(
                    location(node),
                    "expected set as a mapping of content-state fields to new values, found \(Self.describe(node))")
            }
        }
        if let node = fields["priority"] { beat.priority = priority(node) }
        if let node = fields["alert"] { beat.alert = alert(node, scope: scope) }
        if let node = fields["relevance"] { beat.relevance = number(node, "relevance (the relevance-score)") }
        if let node = fields["stale-after"] { beat.staleAfter = staleAfter(node) }
        if let node = fields["start"] {
            beat.start = start(node)
            if case .every = timing {
                log.error(
                    location(fields.keyNode("start") ?? node),
                    "a start happens once; it cannot be on a repeating beat (every:)")
            }
            if !fields.has("alert") {
                log.error(
                    location(fields.keyNode("start") ?? node),
                    "a start needs an alert: without one APNs answers 200 but the device drops the start")
            }
        }
        if let node = fields["end"] {
            beat.end = end(node)
            if case .every = timing {
                log.error(
                    location(fields.keyNode("end") ?? node),
                    "an end happens once; it cannot be on a repeating beat (every:)")
            }
        }
        return log.errorCount == errorsBefore ? beat : nil
    }

    /// A `set:` mapping as field paths. Nested mappings merge into object fields.
    mutating func patch(_ node: Node, state: ValueTemplate, prefix: [String], scope: TemplateScope) -> [PatchEntry] {
        guard case .mapping(let mapping) = node else { return [] }
        let fields = state.fields ?? []
        var entries: [PatchEntry] = []
        for (key, item) in mapping {
            guard case .scalar(let keyScalar) = key else {
                log.error(location(key), "expected a field name, found \(Self.describe(key))")
                continue
            }
            let name = keyScalar.string
            let path = prefix + [name]
            guard let field = fields.first(where: { $0.key == name }) else {
                let owner = prefix.isEmpty ? "content-state" : "'\(prefix.joined(separator: "."))'"
                let hint = DidYouMean.hint(for: name, among: fields.map(\.key))
                log.error(
                    location(key),
                    "\(owner) has no field '\(name)'\(hint); a patch changes the fields the first content-state declares"
                )
                continue
            }
            if case .mapping = item, item.tag.rawValue.hasPrefix("tag:yaml.org") || item.tag.rawValue.isEmpty,
                field.value.fields != nil
            {
                entries += patch(item, state: field.value, prefix: path, scope: scope)
            } else if let value = value(item, scope: scope) {
                entries.append(PatchEntry(path: path, value: value, location: location(item)))
            }
        }
        return entries
    }

    mutating func alert(_ node: Node, scope: TemplateScope) -> Alert<TextTemplate>? {
        guard let fields = fields(of: node, in: "alert", allowed: ["title", "body", "sound"]) else { return nil }
        let title = fields["title"].flatMap { alertText($0, "the alert title", scope: scope) }
        let body = fields["body"].flatMap { alertText($0, "the alert body", scope: scope) }
        let sound = fields["sound"].flatMap { string($0, "the alert sound") }
        if !fields.has("title"), !fields.has("body") {
            log.error(location(node), "an alert needs a title or a body")
        }
        return Alert<TextTemplate>(title: title, body: body, sound: sound)
    }

    /// Text, or `{loc-key, loc-args}`.
    mutating func alertText(_ node: Node, _ what: String, scope: TemplateScope) -> Alert<TextTemplate>.Text? {
        if case .mapping = node {
            guard
                let fields = fields(
                    of: node, in: what, allowed: ["loc-key", "loc-args"],
                    required: ["loc-key": "the key in the app's Localizable.strings"]),
                let key = fields["loc-key"].flatMap({ string($0, "loc-key") })
            else { return nil }
            var args: [TextTemplate] = []
            if let list = fields["loc-args"] {
                guard case .sequence(let items) = list else {
                    log.error(
                        location(list),
                        "expected loc-args as a list of texts, like [\"Saka\", \"23\"]; found \(Self.describe(list))")
                    return nil
                }
                for item in items {
                    if let arg = textTemplate(item, "a loc-arg", scope: scope) { args.append(arg) }
                }
            }
            return .localized(key: key, args: args)
        }
        return textTemplate(node, what, scope: scope).map { .plain($0) }
    }

    /// `true`, `{input-push-token: true}` or `{input-push-channel: <base64 id>}`.
    mutating func start(_ node: Node) -> StartSpec? {
        if case .scalar(let scalar) = node, scalar.resolvedTagIs(.bool) {
            if scalar.string.lowercased() == "true" { return .plain }
            log.error(
                location(node),
                "expected start as true or a mapping with input-push-token or input-push-channel; remove 'start' for an activity the app starts"
            )
            return nil
        }
        guard let fields = fields(of: node, in: "start", allowed: ["input-push-token", "input-push-channel"]) else {
            return nil
        }
        if fields.has("input-push-token"), let key = fields.keyNode("input-push-channel") {
            log.error(
                location(key),
                "a start asks for an update token (input-push-token) or a channel (input-push-channel), not both")
            return nil
        }
        if let node = fields["input-push-token"] {
            return bool(node, "input-push-token") == true ? .inputPushToken : .plain
        }
        if let node = fields["input-push-channel"],
            let channel = string(node, "input-push-channel (a base64 channel id)")
        {
            guard Self.isBase64(channel) else {
                log.error(
                    location(node),
                    "expected input-push-channel as a base64 channel id, like P5ocAtToW3dhrAny47TF1g==; found '\(channel)'"
                )
                return nil
            }
            return .inputPushChannel(channel)
        }
        return .plain
    }

    /// `true` or `{dismissal: …}`.
    mutating func end(_ node: Node) -> EndSpec? {
        if case .scalar(let scalar) = node, scalar.resolvedTagIs(.bool) {
            if scalar.string.lowercased() == "true" { return EndSpec(dismissal: nil) }
            log.error(
                location(node),
                "expected end as true or {dismissal: …}; remove 'end' if the beat does not end the activity")
            return nil
        }
        guard let fields = fields(of: node, in: "end", allowed: ["dismissal"]) else { return nil }
        return EndSpec(dismissal: fields["dismissal"].flatMap { dismissal($0) })
    }

    static func isBase64(_ text: String) -> Bool {
        let padding = text.reversed().prefix { $0 == "=" }.count
        guard !text.isEmpty, padding <= 2 else { return false }
        return text.dropLast(padding).unicodeScalars.allSatisfy {
            ($0 >= "A" && $0 <= "Z") || ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "+" || $0 == "/"
        }
    }
}
