import LivelineCore
import Yams

/// Reads one scenario file's YAML nodes into a `Scenario`, collecting every problem on the way.
///
/// The reader never stops at the first problem: each part is read as far as it can be, so one
/// `liveline validate` run lists everything to fix. Each problem is located at the node it is
/// about and says what was expected. The parts live in extensions, one file each:
/// `+Activity`, `+Beat`, `+Policy`, `+Presentation`, `+Values`, and `+Checks` for what needs a
/// whole activity (the timeline's order and limits, the content-state's types).
package struct ScenarioReader {
    package let file: String
    package var log = DiagnosticLog()
    var templates = TemplateParser()
    /// The scenario's name, once read: a renewal's alert says it when the file gives none.
    var scenarioName = ""

    package init(file: String) { self.file = file }

    // MARK: Locations

    package func location(_ node: Node) -> SourceLocation {
        SourceLocation(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
    }

    /// Where the character at `offset` (in Unicode scalars) of a scalar's text is, when the
    /// scalar is on one line; otherwise where the scalar starts.
    package func location(_ node: Node, offset: Int) -> SourceLocation {
        var base = location(node)
        guard let scalar = node.scalar, !scalar.string.contains("\n") else { return base }
        switch scalar.style {
        case .plain, .any: base.column += offset
        case .singleQuoted, .doubleQuoted: base.column += offset + 1
        default: break
        }
        return base
    }

    /// How a node reads in "found …" messages.
    package static func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar):
            if scalar.resolvedTagIs(.null) { return "null" }
            let text = scalar.string.count > 40 ? String(scalar.string.prefix(40)) + "…" : scalar.string
            return "'\(text)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    // MARK: Mappings

    /// A mapping's entries by key, with unknown keys reported (with a did-you-mean) and
    /// required keys checked. Returns nil, after reporting, when the node is not a mapping.
    package mutating func fields(
        of node: Node, in what: String, allowed: [String], required: [String: String] = [:]
    ) -> Fields? {
        guard case .mapping(let mapping) = node else {
            log.error(location(node), "expected \(what) as a mapping of keys to values, found \(Self.describe(node))")
            return nil
        }
        var fields = Fields()
        var suggested: Set<String> = []
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                log.error(location(key), "expected a key (a plain word) in \(what), found \(Self.describe(key))")
                continue
            }
            let name = scalar.string
            if allowed.contains(name) {
                fields.entries[name] = (key, value)
                fields.order.append(name)
            } else if let suggestion = DidYouMean.suggestion(for: name, among: allowed) {
                suggested.insert(suggestion)
                log.error(location(key), "unknown key '\(name)' in \(what); did you mean '\(suggestion)'?")
            } else {
                log.error(
                    location(key),
                    "unknown key '\(name)' in \(what); expected one of: \(allowed.joined(separator: ", "))")
            }
        }
        for (key, meaning) in required.sorted(by: { $0.key < $1.key })
        where fields.entries[key] == nil && !suggested.contains(key) {
            log.error(location(node), "\(what) is missing '\(key)' (\(meaning))")
        }
        return fields
    }

    // MARK: Scalars

    /// Text. Any scalar but null reads as its text, so `id: 1` is the id "1".
    package mutating func string(_ node: Node, _ what: String) -> String? {
        guard case .scalar(let scalar) = node, !scalar.resolvedTagIs(.null) else {
            log.error(location(node), "expected \(what) as text, found \(Self.describe(node))")
            return nil
        }
        return scalar.string
    }

    package mutating func integer(_ node: Node, _ what: String) -> Int? {
        guard case .scalar(let scalar) = node, scalar.resolvedTagIs(.int),
            let value = Int(scalar.string.replacingUnderscores())
        else {
            log.error(location(node), "expected \(what) as a whole number, found \(Self.describe(node))")
            return nil
        }
        return value
    }

    package mutating func number(_ node: Node, _ what: String) -> Double? {
        guard case .scalar(let scalar) = node, scalar.resolvedTagIs(.int) || scalar.resolvedTagIs(.float),
            let value = Double(scalar.string.replacingUnderscores()), value.isFinite
        else {
            log.error(location(node), "expected \(what) as a number, found \(Self.describe(node))")
            return nil
        }
        return value
    }

    package mutating func bool(_ node: Node, _ what: String) -> Bool? {
        guard case .scalar(let scalar) = node, scalar.resolvedTagIs(.bool) else {
            log.error(location(node), "expected \(what) as true or false, found \(Self.describe(node))")
            return nil
        }
        return scalar.string.lowercased() == "true"
    }

    /// A duration: `90s`, `23m`, `1h05m10s`, `250ms` or `0`.
    package mutating func duration(_ node: Node, _ what: String) -> Millis? {
        guard case .scalar(let scalar) = node, let value = DurationText.parse(scalar.string) else {
            log.error(location(node), "expected \(what) as \(DurationText.expected), found \(Self.describe(node))")
            return nil
        }
        return value
    }

    /// One of a few words.
    package mutating func choice<T>(_ node: Node, _ what: String, _ choices: [(String, T)]) -> T? {
        if case .scalar(let scalar) = node, let match = choices.first(where: { $0.0 == scalar.string }) {
            return match.1
        }
        let words = choices.map { "'\($0.0)'" }
        let list =
            words.count == 2
            ? "\(words[0]) or \(words[1])" : words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
        var hint = ""
        if case .scalar(let scalar) = node,
            let suggestion = DidYouMean.suggestion(for: scalar.string, among: choices.map(\.0))
        {
            hint = "; did you mean '\(suggestion)'?"
        }
        log.error(location(node), "expected \(what) as \(list), found \(Self.describe(node))\(hint)")
        return nil
    }
}

/// The entries of a mapping, by key, in written order.
package struct Fields {
    package var entries: [String: (key: Node, value: Node)] = [:]
    package var order: [String] = []

    package init() {}

    package subscript(key: String) -> Node? { entries[key]?.value }
    package func keyNode(_ key: String) -> Node? { entries[key]?.key }
    package func has(_ key: String) -> Bool { entries[key] != nil }
}

extension Node.Scalar {
    /// Whether the scalar resolves to this tag. Yams resolves implicit tags only through
    /// `Node.tag`, so go through it.
    package func resolvedTagIs(_ name: Tag.Name) -> Bool { Node.scalar(self).tag.is(name) }
}

extension Tag {
    /// Whether the node resolved to this tag (Yams keeps `Tag.name` internal).
    package func `is`(_ name: Tag.Name) -> Bool { rawValue == name.rawValue }
}

extension String {
    package func replacingUnderscores() -> String { filter { $0 != "_" } }
}
