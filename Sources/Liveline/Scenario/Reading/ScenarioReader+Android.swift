import LivelineCore
import Yams

extension ScenarioReader {
    static let androidKeys = [
        "channel", "small-icon", "style", "title", "text", "chip", "progress", "progress-max", "segments", "points",
        "when", "chronometer", "data",
    ]

    /// An activity's `android:` block: how its content-state becomes a Live Update. What can be
    /// known from the file alone is checked here (names, types, the bar's arithmetic, FCM's
    /// reserved keys); what depends on the story, when the loader plays it (``AndroidDryRun``).
    mutating func android(_ node: Node, attributes: ValueTemplate, state: ValueTemplate) -> AndroidLiveUpdate? {
        guard
            let fields = fields(
                of: node, in: "android", allowed: Self.androidKeys,
                required: [
                    "channel": "the id of the NotificationChannel the app created for Live Updates, like live-updates",
                    "title": "the notification's title, like \"{{ attributes.homeTeam }} v {{ attributes.awayTeam }}\"",
                ])
        else { return nil }
        let errorsBefore = log.errorCount
        let scope = TemplateScope(
            allowsN: false, allowsInput: false, state: state, place: "in android:", attributes: attributes)
        let stateTypes = StaticType(of: state, state: .object([]))

        var channel = ""
        if let node = fields["channel"], let text = string(node, "the channel id") {
            if text.trimmingSpaces().isEmpty || text.contains("{{") {
                log.error(
                    location(node),
                    "expected the channel as the id of a NotificationChannel the app created, like live-updates; found '\(text)'"
                )
            }
            channel = text
        }
        var smallIcon: String?
        if let node = fields["small-icon"], let text = string(node, "the small icon's resource name") {
            if Self.isResourceName(text) {
                smallIcon = text
            } else {
                log.error(
                    location(node),
                    "expected the small icon as a drawable resource name (lowercase letters, digits and '_', starting with a letter), like ic_stat_match; found '\(text)'"
                )
            }
        }
        let title = fields["title"].flatMap { androidText($0, "the title", scope: scope) }
        let text = fields["text"].flatMap { androidText($0, "the text", scope: scope) }
        let chip = fields["chip"].flatMap { androidText($0, "the chip", scope: scope) }
        if let chip, let node = fields["chip"], case .literal(.string(let constant)) = chip.template,
            constant.count > AndroidRules.chipLength
        {
            log.error(location(node), Self.chipCut(constant, when: nil))
        }

        var progress: AndroidLiveUpdate.Value?
        if let node = fields["progress"], let value = androidScalar(node, "progress", scope: scope) {
            let type = StaticType(of: value.template, state: stateTypes)
            if case .scalar(let scalar) = type, scalar != .int, scalar != .double, scalar != .null {
                log.error(
                    location(node),
                    "expected progress as a number (the tracker's place along the bar), like \"{{ state.minute }}\"; this is \(type.description)"
                )
            } else {
                progress = value
            }
        }
        let segments = fields["segments"].map { androidMarks($0, "segments", number: "length", minimum: 1) } ?? []
        let points = fields["points"].map { androidMarks($0, "points", number: "position", minimum: 0) } ?? []
        let total = segments.reduce(0) { $0 + $1.value }
        var progressMax = total > 0 ? total : 100
        if let node = fields["progress-max"], let value = integer(node, "progress-max") {
            if value < 1 {
                log.error(location(node), "expected progress-max as a whole number of 1 or more, found \(value)")
            } else if total > 0, value != total {
                log.error(
                    location(node),
                    "progress-max is \(value), but the segments add up to \(total); ProgressStyle's maximum is the segments' total, so leave progress-max out or make them agree"
                )
            } else {
                progressMax = value
            }
        }
        for point in points where point.value > progressMax {
            log.error(
                point.location,
                "this point at \(point.value) is past the end of the bar (\(progressMax)); Android does not draw it")
        }
        if let progress, case .literal(let literal) = progress.template, let value = literal.wholeNumber,
            value > progressMax
        {
            log.error(progress.location, "progress is \(value), over its maximum of \(progressMax)")
        }

        var when: AndroidLiveUpdate.Value?
        if let node = fields["when"], let value = androidScalar(node, "when", scope: scope) {
            let type = StaticType(of: value.template, state: stateTypes)
            if case .scalar(let scalar) = type, scalar != .date, scalar != .null {
                log.error(
                    location(node),
                    "expected when as a date, like \"{{ state.kickoff }}\" or !date +10m; this is \(type.description)")
            } else {
                when = value
            }
        }
        var chronometer: AndroidLiveUpdate.Chronometer?
        if let node = fields["chronometer"] {
            chronometer = choice(
                node, "the chronometer", AndroidLiveUpdate.Chronometer.allCases.map { ($0.rawValue, $0) })
            if chronometer != nil, fields["when"] == nil {
                log.error(
                    location(node), "a chronometer counts from or to 'when', which this android: block does not set")
            }
        }
        let drawsBar = fields.has("progress") || !segments.isEmpty || !points.isEmpty
        var style: AndroidLiveUpdate.Style = drawsBar ? .progress : fields.has("text") ? .bigText : .standard
        if let node = fields["style"] {
            style = choice(node, "the style", AndroidLiveUpdate.Style.allCases.map { ($0.rawValue, $0) }) ?? style
            if style != .progress, drawsBar {
                log.warning(
                    location(node),
                    "style \(style.rawValue) draws no progress bar; progress, segments and points are sent, but only ProgressStyle shows them"
                )
            }
        }
        let data = fields["data"].map { androidData($0, scope: scope) } ?? []

        guard log.errorCount == errorsBefore, let title else { return nil }
        return AndroidLiveUpdate(
            channel: channel, smallIcon: smallIcon, style: style, title: title, text: text, chip: chip,
            progress: progress, progressMax: progressMax,
            segments: segments.map { .init(length: $0.value, color: $0.color) },
            points: points.map { .init(position: $0.value, color: $0.color) }, when: when,
            chronometer: chronometer, data: data, location: location(node)
        )
    }

    /// "the chip "1–0 45+2'" is 9 characters; the status bar shows about 7, so it would read "1–0 45…""
    static func chipCut(_ text: String, when: String?) -> String {
        let at = when.map { " at \($0)" } ?? ""
        return
            "the chip\(at) is \"\(text)\", \(text.count) characters; Android suggests at most \(AndroidRules.chipLength) and may show it as \"\(AndroidRules.chipAsShown(text))\""
    }

    /// A text of the notification: a template whose value is shown as text.
    private mutating func androidText(_ node: Node, _ what: String, scope: TemplateScope) -> AndroidLiveUpdate.Value? {
        guard case .scalar = node, !node.tag.rawValue.hasPrefix("!d") else {
            log.error(
                location(node),
                "expected \(what) as text with {{ }} templates, like \"{{ state.homeScore }}–{{ state.awayScore }}\"; found \(Self.describe(node))"
            )
            return nil
        }
        return androidScalar(node, what, scope: scope)
    }

    /// One value (not a mapping or a list): a literal, a template or a `!date`.
    private mutating func androidScalar(_ node: Node, _ what: String, scope: TemplateScope) -> AndroidLiveUpdate.Value?
    {
        if case .scalar = node {
            return value(node, scope: scope).map { AndroidLiveUpdate.Value($0, at: location(node)) }
        }
        log.error(location(node), "expected \(what) as one value, found \(Self.describe(node))")
        return nil
    }

    /// `segments:` or `points:`: a list of `{length|position: n, color: c}`.
    private mutating func androidMarks(
        _ node: Node, _ what: String, number: String, minimum: Int
    ) -> [(value: Int, color: String?, location: SourceLocation)] {
        guard case .sequence(let items) = node else {
            log.error(
                location(node),
                "expected \(what) as a list of {\(number): n, color: \"#rrggbb\"} (each item starting with '- '), found \(Self.describe(node))"
            )
            return []
        }
        var marks: [(Int, String?, SourceLocation)] = []
        for item in items {
            guard
                let fields = fields(
                    of: item, in: "one of the \(what)", allowed: [number, "color"], required: [number: "a whole number"]
                )
            else { continue }
            var color: String?
            if let node = fields["color"], let text = string(node, "the colour") {
                color = androidColor(text, at: node)
            }
            guard let node = fields[number], let value = integer(node, "the \(number)") else { continue }
            if value < minimum {
                log.error(
                    location(node), "expected the \(number) as a whole number of \(minimum) or more, found \(value)")
                continue
            }
            marks.append((value, color, location(item)))
        }
        return marks
    }

    /// `#rgb`, `#rrggbb` or a colour name, as `#rrggbb`.
    private mutating func androidColor(_ text: String, at node: Node) -> String? {
        if let named = Presentation.namedTints[text] { return named }
        let hex = text.hasPrefix("#") ? Array(text.dropFirst()) : []
        if hex.count == 6, hex.allSatisfy(\.isHexDigit) { return text.lowercased() }
        if hex.count == 3, hex.allSatisfy(\.isHexDigit) {
            return "#" + hex.map { "\($0)\($0)" }.joined().lowercased()
        }
        let names = Presentation.namedTints.keys.sorted().joined(separator: ", ")
        log.error(location(node), "expected the colour as #rgb, #rrggbb or one of \(names); found '\(text)'")
        return nil
    }

    /// `data:`: the app's own keys. FCM's reserved keys and Liveline's own are refused.
    private mutating func androidData(_ node: Node, scope: TemplateScope) -> [AndroidLiveUpdate.DataField] {
        guard case .mapping(let mapping) = node else {
            log.error(
                location(node),
                "expected data as a mapping of the app's own keys to values, found \(Self.describe(node))")
            return []
        }
        var result: [AndroidLiveUpdate.DataField] = []
        for (key, item) in mapping {
            guard case .scalar(let scalar) = key, !scalar.string.isEmpty else {
                log.error(location(key), "expected a key (a plain word) in data, found \(Self.describe(key))")
                continue
            }
            let name = scalar.string
            if let reason = LiveUpdateKeys.reservedReason(name) {
                log.error(location(key), "FCM refuses the data key '\(name)': \(reason); name it differently")
                continue
            }
            if LiveUpdateKeys.all.contains(name) {
                log.error(
                    location(key),
                    "'\(name)' is one of the keys Liveline sends itself (docs/fcm.md); name the app's own key differently"
                )
                continue
            }
            if let value = androidScalar(item, "the value of '\(name)'", scope: scope) {
                result.append(AndroidLiveUpdate.DataField(key: name, value: value))
            }
        }
        return result
    }

    /// An Android resource name: lowercase letters, digits and `_`, starting with a letter.
    static func isResourceName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first >= "a", first <= "z" else { return false }
        return text.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "_" }
    }
}

extension StateValue {
    /// The value as a whole number, when it is one (a decimal is rounded).
    var wholeNumber: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.isFinite && abs(value) < 1e15: Int(value.rounded())
        default: nil
        }
    }
}
