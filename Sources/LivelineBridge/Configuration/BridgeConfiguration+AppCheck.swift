import Liveline

extension BridgeConfiguration {
    /// Every source's scenario, and every `set:` rule and value-map entry of every source,
    /// checked against the app's own types (`bridge serve --app`, `app:`, `liveline validate`):
    /// a rule's problems are located where its value is written in this file, each naming the
    /// Swift declaration. Errors are mappings that would
    /// push a state the phone drops; a value read from the event as it comes is a warning where
    /// the field takes less than any text (an enum, a number).
    public func appDiagnostics(using checker: any AppTypesChecking) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var scenarios: Set<String> = []
        for source in sources where scenarios.insert(source.scenario.file).inserted {
            diagnostics += checker.problems(in: source.scenario)
        }
        var ruleProblems: [Diagnostic] = []
        for source in sources {
            guard source.scenario.activities.indices.contains(source.activityIndex) else { continue }
            let attributesType = source.scenario.activities[source.activityIndex].attributesType
            for event in source.events.keys.sorted() {
                guard let rules = source.events[event]?.change?.set else { continue }
                for rule in rules {
                    for (value, location) in Self.values(of: rule) {
                        ruleProblems += checker.problems(
                            setting: rule.path, to: value, attributesType: attributesType,
                            location: location ?? source.location
                        )
                        .map {
                            Diagnostic(
                                $0.severity, $0.location, "sources.\(source.name).events.\(event): " + $0.message)
                        }
                    }
                }
            }
        }
        return diagnostics
            + ruleProblems.sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
    }

    /// What a rule may set the field to, each with where it is written.
    static func values(of rule: FieldRule) -> [(FieldValue, SourceLocation?)] {
        switch rule.value {
        case .literal(let value):
            return [(.known(value), rule.location)]
        case .read(let location, let conversion):
            switch conversion {
            case .date: return [(.typed(.date, "a date read from \(location)"), rule.location)]
            case .string: return [(.typed(.string, "text read from \(location)"), rule.location)]
            case .json: return [(.runtime("the value at \(location) of the event"), rule.location)]
            }
        case .template(let template):
            let text = template.pieces.map { piece in
                switch piece {
                case .text(let text): text
                case .value(let location): "{{ \(location) }}"
                }
            }.joined()
            return [(.typed(.string, "\"\(text)\""), rule.location)]
        case .mapped(_, let map):
            var values = map.entries.keys.sorted().compactMap { key in
                map.entries[key].map { (FieldValue.known($0), map.locations[key] ?? rule.location) }
            }
            if let fallback = map.fallback { values.append((.known(fallback), map.locations[""] ?? rule.location)) }
            return values
        }
    }
}
