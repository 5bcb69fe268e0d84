import LivelineCore
import Yams

extension ScenarioReader {
    static let presentationKeys = [
        "tint", "icon", "lock-screen", "compact-leading", "compact-trailing", "minimal", "expanded",
    ]
    static let lockScreenKeys = ["title", "lines"]
    static let expandedKeys = ["leading", "trailing", "center", "bottom"]

    /// An activity's `presentation:` block. Every text's placeholders must name a field of the
    /// first content-state or of the attributes, so a typo is found here and not on a projector.
    mutating func presentation(_ node: Node, attributes: ValueTemplate, state: ValueTemplate) -> Presentation? {
        guard let fields = fields(of: node, in: "presentation", allowed: Self.presentationKeys) else { return nil }
        let errorsBefore = log.errorCount
        var result = Presentation()
        if let node = fields["tint"], let text = string(node, "the tint") {
            let hex = text.hasPrefix("#") ? text.dropFirst() : ""
            if Presentation.namedTints[text] != nil
                || ((hex.count == 3 || hex.count == 6) && hex.allSatisfy(\.isHexDigit))
            {
                result.tint = text
            } else {
                let names = Presentation.namedTints.keys.sorted().joined(separator: ", ")
                log.error(location(node), "expected the tint as #rgb, #rrggbb or one of \(names); found '\(text)'")
            }
        }
        if let node = fields["icon"], let text = string(node, "the icon name") {
            if !text.isEmpty, text.unicodeScalars.allSatisfy({ Self.isNameCharacter($0) || ($0 >= "A" && $0 <= "Z") }) {
                result.icon = text
            } else {
                log.error(
                    location(node),
                    "expected the icon as an SF Symbol name like soccerball or box.truck; found '\(text)'")
            }
        }
        let scope = PresentationScope(attributes: attributes, state: state)
        if let node = fields["lock-screen"],
            let lock = self.fields(of: node, in: "lock-screen", allowed: Self.lockScreenKeys)
        {
            if let title = lock["title"] {
                result.lockScreenTitle = presentationText(title, "the lock-screen title", scope: scope)
            }
            if let lines = lock["lines"] {
                if case .sequence(let items) = lines {
                    result.lockScreenLines = items.compactMap {
                        presentationText($0, "a lock-screen line", scope: scope)
                    }
                } else {
                    log.error(
                        location(lines),
                        "expected lines as a list of texts (each starting with '- '), found \(Self.describe(lines))")
                }
            }
        }
        if let node = fields["compact-leading"] {
            result.compactLeading = presentationText(node, "compact-leading", scope: scope)
        }
        if let node = fields["compact-trailing"] {
            result.compactTrailing = presentationText(node, "compact-trailing", scope: scope)
        }
        if let node = fields["minimal"] { result.minimal = presentationText(node, "minimal", scope: scope) }
        if let node = fields["expanded"],
            let expanded = self.fields(of: node, in: "expanded", allowed: Self.expandedKeys)
        {
            if let region = expanded["leading"] {
                result.expandedLeading = presentationText(region, "the expanded leading region", scope: scope)
            }
            if let region = expanded["trailing"] {
                result.expandedTrailing = presentationText(region, "the expanded trailing region", scope: scope)
            }
            if let region = expanded["center"] {
                result.expandedCenter = presentationText(region, "the expanded center region", scope: scope)
            }
            if let region = expanded["bottom"] {
                result.expandedBottom = presentationText(region, "the expanded bottom region", scope: scope)
            }
        }
        return log.errorCount == errorsBefore ? result : nil
    }

    /// The fields a presentation's placeholders may name.
    struct PresentationScope {
        var attributes: ValueTemplate
        var state: ValueTemplate

        func root(_ scope: String) -> ValueTemplate? {
            switch scope {
            case "state": state
            case "attributes": attributes
            default: nil
            }
        }
    }

    /// Literal text with `{{ state.field }}` / `{{ attributes.field }}` placeholders, each with an
    /// optional `| countdown`, `| time` or `| upper`.
    mutating func presentationText(_ node: Node, _ what: String, scope: PresentationScope) -> PresentationText? {
        guard case .scalar(let scalar) = node, !scalar.resolvedTagIs(.null) else {
            log.error(
                location(node),
                "expected \(what) as text, like \"{{ state.homeScore }}–{{ state.awayScore }}\"; found \(Self.describe(node))"
            )
            return nil
        }
        let text = Array(scalar.string.unicodeScalars)
        var parts: [PresentationText.Part] = []
        var literal = ""
        var index = 0
        var failed = false
        while index < text.count {
            if text[index] == "{", index + 1 < text.count, text[index + 1] == "{" {
                guard let close = Self.closing(text, from: index + 2) else {
                    log.error(location(node, offset: index), "this placeholder in \(what) has no closing '}}'")
                    return nil
                }
                let inside = String(String.UnicodeScalarView(text[(index + 2)..<close]))
                if let part = placeholder(inside, at: location(node, offset: index), what: what, scope: scope) {
                    if !literal.isEmpty { parts.append(.text(literal)) }
                    literal = ""
                    parts.append(part)
                } else {
                    failed = true
                }
                index = close + 2
            } else {
                literal.unicodeScalars.append(text[index])
                index += 1
            }
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        return failed ? nil : PresentationText(parts: parts)
    }

    private static func closing(_ text: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index + 1 < text.count {
            if text[index] == "}", text[index + 1] == "}" { return index }
            index += 1
        }
        return nil
    }

    private mutating func placeholder(
        _ inside: String, at place: SourceLocation, what: String, scope: PresentationScope
    ) -> PresentationText.Part? {
        let pieces = inside.split(separator: "|", maxSplits: 1).map { $0.trimmingSpaces() }
        var format: PresentationFormat?
        if pieces.count == 2 {
            guard let known = PresentationFormat(rawValue: pieces[1]) else {
                let names = PresentationFormat.allCases.map(\.rawValue)
                let hint = DidYouMean.suggestion(for: pieces[1], among: names).map { "; did you mean '\($0)'?" } ?? ""
                log.error(
                    place, "unknown format '\(pieces[1])' in \(what); expected \(names.joined(separator: ", "))\(hint)")
                return nil
            }
            format = known
        }
        let path = (pieces.first ?? "").split(separator: ".").map(String.init)
        guard path.count >= 2, let root = scope.root(path[0]) else {
            log.error(
                place,
                "expected a placeholder like {{ state.minute }} or {{ attributes.homeTeam }} in \(what); found {{ \(inside.trimmingSpaces()) }}"
            )
            return nil
        }
        var current = root
        for (depth, key) in path.dropFirst().enumerated() {
            guard let fields = current.fields else {
                log.error(
                    place,
                    "\(path.prefix(depth + 1).joined(separator: ".")) is not a mapping, so it has no field '\(key)' (in \(what))"
                )
                return nil
            }
            guard let field = fields.first(where: { $0.key == key }) else {
                let owner = path[0] == "state" ? "the content-state" : "the attributes"
                let hint =
                    DidYouMean.suggestion(for: key, among: fields.map(\.key)).map { "; did you mean '\($0)'?" }
                    ?? "; it has \(fields.map(\.key).joined(separator: ", "))"
                log.error(place, "\(owner) has no field '\(key)' (in \(what))\(hint)")
                return nil
            }
            current = field.value
        }
        return .field(scope: path[0], path: Array(path.dropFirst()), format: format)
    }
}
