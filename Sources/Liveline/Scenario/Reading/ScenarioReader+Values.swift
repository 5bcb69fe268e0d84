import LivelineCore
import Yams

extension ScenarioReader {
    static let dateTag = "!date"
    static let dateRangeTag = "!daterange"
    static let expectedDate =
        "a date like +25m (after the beat), start+1h (after the activity start) or 2026-11-22T20:00:00Z"

    /// A content-state, attributes or patch value. Returns nil after reporting a problem.
    mutating func value(_ node: Node, scope: TemplateScope) -> ValueTemplate? {
        let tag = node.tag.rawValue
        if tag == Self.dateTag {
            guard case .scalar(let scalar) = node else {
                log.error(location(node), "!date takes one value, \(Self.expectedDate); found \(Self.describe(node))")
                return nil
            }
            return dateTemplate(scalar.string, at: node).map { .date($0) }
        }
        if tag == Self.dateRangeTag {
            guard case .sequence(let sequence) = node, sequence.count == 2 else {
                log.error(
                    location(node),
                    "!daterange takes a list of two dates, like !daterange [+0m, +30m]; found \(Self.describe(node))")
                return nil
            }
            let bounds = sequence.map { item -> DateTemplate? in
                guard case .scalar(let scalar) = item else {
                    log.error(location(item), "expected \(Self.expectedDate), found \(Self.describe(item))")
                    return nil
                }
                return dateTemplate(scalar.string, at: item)
            }
            guard let lower = bounds[0], let upper = bounds[1] else { return nil }
            return .dateRange(lower, upper)
        }
        if tag.hasPrefix("!"), !tag.hasPrefix("!!") {
            log.error(location(node), "unknown tag '\(tag)'; expected !date or !daterange")
            return nil
        }
        switch node {
        case .scalar(let scalar):
            return scalarValue(scalar, node: node, scope: scope)
        case .mapping(let mapping):
            var fields: [ValueField] = []
            var failed = false
            for (key, item) in mapping {
                guard case .scalar(let keyScalar) = key else {
                    log.error(location(key), "expected a field name, found \(Self.describe(key))")
                    failed = true
                    continue
                }
                if let value = value(item, scope: scope) {
                    fields.append(ValueField(key: keyScalar.string, value: value, location: location(key)))
                } else {
                    failed = true
                }
            }
            return failed ? nil : .object(fields)
        case .sequence(let sequence):
            var items: [ValueTemplate] = []
            var failed = false
            for item in sequence {
                if let value = value(item, scope: scope) { items.append(value) } else { failed = true }
            }
            return failed ? nil : .array(items)
        case .alias:
            log.error(location(node), "YAML aliases are not supported here; write the value out")
            return nil
        }
    }

    private mutating func scalarValue(_ scalar: Node.Scalar, node: Node, scope: TemplateScope) -> ValueTemplate? {
        if scalar.resolvedTagIs(.null) { return .literal(.null) }
        if scalar.resolvedTagIs(.bool) { return .literal(.bool(scalar.string.lowercased() == "true")) }
        if scalar.resolvedTagIs(.int) {
            guard let value = Int(scalar.string.replacingUnderscores()) else {
                log.error(location(node), "number \(scalar.string) does not fit a 64-bit integer")
                return nil
            }
            return .literal(.int(value))
        }
        if scalar.resolvedTagIs(.float) {
            let text = scalar.string.replacingUnderscores().lowercased()
            guard let value = Double(text), value.isFinite else {
                log.error(
                    location(node),
                    "expected a finite number, found \(Self.describe(node)); JSON has no infinity or NaN")
                return nil
            }
            return .literal(.double(value))
        }
        return template(scalar.string, at: node, scope: scope).map { parsed in
            switch parsed {
            case .expression(let expression): .expression(expression)
            case .text(let text): .text(text)
            }
        } ?? .literal(.string(scalar.string))
    }

    /// Parses templates in `text`, reporting syntax errors at their character. Returns nil when
    /// the text has no templates (or, after reporting, when it is broken).
    mutating func template(_ text: String, at node: Node, scope: TemplateScope) -> TemplateParser.Parsed? {
        templates.scope = scope
        do {
            return try templates.parse(text)
        } catch {
            log.error(location(node, offset: error.offset), error.message)
            return nil
        }
    }

    /// Text that may hold templates, such as an alert title.
    mutating func textTemplate(_ node: Node, _ what: String, scope: TemplateScope) -> TextTemplate? {
        guard let text = string(node, what) else { return nil }
        switch template(text, at: node, scope: scope) {
        case .expression(let expression): return TextTemplate(parts: [.expression(expression)])
        case .text(let template): return template
        case nil: return TextTemplate(text)
        }
    }

    /// `+25m`, `-5m`, `start+1h`, `start` or an ISO-8601 instant.
    mutating func dateTemplate(_ text: String, at node: Node) -> DateTemplate? {
        let trimmed = text.trimmingSpaces()
        if let sign = trimmed.first, sign == "+" || sign == "-" {
            if let millis = DurationText.parse(String(trimmed.dropFirst()).trimmingSpaces()) {
                return .afterBeat(sign == "-" ? -millis : millis)
            }
        } else if trimmed.hasPrefix("start") {
            let rest = trimmed.dropFirst(5).trimmingSpaces()
            if rest.isEmpty { return .afterStart(0) }
            if let sign = rest.first, sign == "+" || sign == "-",
                let millis = DurationText.parse(String(rest.dropFirst()).trimmingSpaces())
            {
                return .afterStart(sign == "-" ? -millis : millis)
            }
        } else if let instant = UTCTime.parse(trimmed) {
            return .absolute(instant)
        }
        log.error(location(node), "expected \(Self.expectedDate), found '\(text)'")
        return nil
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
