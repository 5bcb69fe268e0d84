import Liveline

/// Checks a loaded scenario against the app's own types: each activity's `attributes-type`
/// exists, its `attributes` decode, and every content-state the story can reach decodes.
///
/// "Every content-state the story can reach": the first one, and after it any mix of beats
/// (a `chance` beat may or may not happen, a triggered beat may come at any time). A struct
/// decodes when each of its fields does, and a field holds either its first value or the value
/// of the last patch that set it, so checking the first state whole and each patch's value
/// against its field covers every reachable state, templates included: a template is checked
/// by the type it yields (`{{ n + 45 }}` is an integer), each `pick` choice by itself, and an
/// `{{ input.x }}` is reported as known only when its event arrives.
public struct ScenarioAppCheck: Sendable {
    public let types: AppTypes
    private let checker: DecodeChecker

    public init(types: AppTypes) {
        self.types = types
        checker = DecodeChecker(types: types)
    }

    /// The problems, located in the scenario file and naming the Swift declaration: decode
    /// failures and misread values as errors, what cannot be checked statically and what the
    /// app ignores as warnings.
    public func diagnostics(for scenario: Scenario) -> [Diagnostic] {
        report(for: scenario).diagnostics
    }

    /// The diagnostics and how much was left unchecked, for a summary that never says
    /// "decodes in the app" about something it did not check.
    public func report(for scenario: Scenario) -> ScenarioAppReport {
        var problems: [(DecodeProblem, SourceLocation)] = []
        for activity in scenario.activities {
            problems += check(activity)
        }
        var seen: Set<Diagnostic> = []
        var diagnostics: [Diagnostic] = []
        var unchecked = 0
        for (problem, fallback) in problems {
            let severity: Diagnostic.Severity = [.fails, .misread].contains(problem.kind) ? .error : .warning
            let diagnostic = Diagnostic(severity, problem.location ?? fallback, problem.description)
            guard seen.insert(diagnostic).inserted else { continue }
            diagnostics.append(diagnostic)
            if problem.kind == .unchecked { unchecked += 1 }
        }
        return ScenarioAppReport(diagnostics: diagnostics, unchecked: unchecked, syntaxErrors: types.syntaxErrors.count)
    }

    private func check(_ activity: ActivitySpec) -> [(DecodeProblem, SourceLocation)] {
        guard let attributes = types.attributes(named: activity.attributesType) else {
            let known = types.activityAttributes.map(\.name)
            let hint = DidYouMean.hint(
                for: activity.attributesType, among: known.map { $0.split(separator: ".").last.map(String.init) ?? $0 })
            let message =
                "attributes-type \(activity.attributesType) is not an ActivityAttributes type in the app's sources "
                + "(found \(known.joined(separator: ", "))): a start with it would be dropped on the device\(hint)"
            return [
                (
                    DecodeProblem(
                        kind: .fails, path: "attributes-type", message: message, location: nil, declaration: nil),
                    activity.attributesTypeLocation ?? activity.location
                )
            ]
        }
        var problems: [DecodeProblem] = []
        if let ambiguity = types.ambiguity(of: attributes) {
            let places = ambiguity.declarations.map {
                "\($0.declaration.location.file):\($0.declaration.location.line)"
            }
            let choices = ambiguity.declarations.map { "--app-type \(types.choiceName(for: $0))" }
            problems.append(
                DecodeProblem(
                    kind: .unchecked, path: "attributes-type",
                    message:
                        "\(ambiguity.name) is declared \(ambiguity.declarations.count) times, in \(places.joined(separator: " and ")); "
                        + "checked against the first only; choose with \(choices.joined(separator: " or "))",
                    location: activity.attributesTypeLocation ?? activity.location, declaration: nil
                ))
        }
        let initial = activity.contentState.fields ?? []
        problems += checker.checkAttributes(
            CheckedValue(activity.attributes, state: []), of: attributes,
            location: activity.attributesLocation ?? activity.location
        )
        problems += checker.checkContentState(
            CheckedValue(activity.contentState, state: initial), of: attributes,
            location: activity.contentStateLocation ?? activity.location
        )
        let stateType = types.contentState(of: attributes)
        for beat in activity.beats {
            for entry in beat.patch {
                problems += checkField(
                    entry.path, CheckedValue(entry.value, state: initial), stateType: stateType,
                    location: entry.location)
            }
        }
        return problems.map { ($0, activity.location) }
    }

    /// Checks one value set at `keys` of the content-state (a beat's `set:` entry, a bridge
    /// rule) against the field the keys name.
    func checkField(
        _ keys: [String], _ value: CheckedValue, stateType: AppTypeDeclaration?, location: SourceLocation?
    ) -> [DecodeProblem] {
        guard var current = stateType else { return [] }
        let path = "content-state." + keys.joined(separator: ".")
        var field: (type: SwiftTypeReference, owner: String, declaration: SwiftDeclaration)?
        var depth = 0
        while depth < keys.count {
            let key = keys[depth]
            if depth > 0 {
                guard let next = field.flatMap({ resolveStruct($0.type, from: $0.owner) }) else {
                    return [
                        unchecked(
                            path,
                            "\(path): the type at \(keys.prefix(depth).joined(separator: ".")) is not one whose fields Liveline knows; not checked",
                            location, field?.declaration)
                    ]
                }
                current = next
            }
            switch current {
            case .structure(let type):
                if case .handWritten(let decoder) = type.decoding {
                    return [
                        unchecked(
                            path,
                            "\(path): \(type.name) decodes itself (a hand-written init(from:)); what it accepts is known only by running it, so it is not checked",
                            location, decoder)
                    ]
                }
                guard let found = type.decodedFields.first(where: { $0.key == key }) else {
                    let hint = DidYouMean.hint(for: key, among: type.decodedFields.map(\.key))
                    return [
                        DecodeProblem(
                            kind: .ignored, path: path,
                            message: "\(path) is ignored by the app: \(type.name) has no such key\(hint)",
                            location: location, declaration: type.declaration
                        )
                    ]
                }
                field = (found.property.type, type.name, found.property.declaration)
            case .enumeration(let type) where type.rawType == .none:
                // `{case: {label: value}}`: a patch inside keeps the case and sets one associated value.
                guard let enumCase = type.cases.first(where: { type.key(for: $0) == key }), depth + 1 < keys.count,
                    let property = enumCase.associatedValues.first(where: { $0.name == keys[depth + 1] })
                else {
                    return [
                        DecodeProblem(
                            kind: .fails, path: path,
                            message:
                                "\(path) is not an associated value of \(type.name) (its cases are written { case: { label: value } })",
                            location: location, declaration: type.declaration
                        )
                    ]
                }
                field = (property.type, type.name, property.declaration)
                depth += 1
            default:
                return [
                    unchecked(
                        path, "\(path): \(current.name) has no fields to patch; not checked", location,
                        current.declaration)
                ]
            }
            depth += 1
        }
        guard let field else { return [] }
        return checker.check(
            value, as: field.type, scope: field.owner, path: path, declaration: field.declaration, location: location)
    }

    private func unchecked(
        _ path: String, _ message: String, _ location: SourceLocation?, _ declaration: SwiftDeclaration?
    ) -> DecodeProblem {
        DecodeProblem(kind: .unchecked, path: path, message: message, location: location, declaration: declaration)
    }

    private func resolveStruct(_ type: SwiftTypeReference, from scope: String) -> AppTypeDeclaration? {
        switch type {
        case .optional(let wrapped): return resolveStruct(wrapped, from: scope)
        case .named(let name): return types.resolve(name, from: scope)
        case .generic(let name, let arguments): return types.specialized(name, arguments, from: scope)
        default: return nil
        }
    }
}

/// What checking a scenario against the app found.
public struct ScenarioAppReport: Sendable {
    /// Located in the scenario, naming the Swift declarations.
    public var diagnostics: [Diagnostic]
    /// Values only running the app can tell about (each is one of the warnings).
    public var unchecked: Int
    /// Syntax errors in the app's sources, which may hide fields.
    public var syntaxErrors: Int

    public var errors: Int { diagnostics.filter { $0.severity == .error }.count }
    public var warnings: Int { diagnostics.count - errors }

    /// The verdict for a summary line: "decodes in the app" only when everything was checked.
    public var verdict: String {
        if errors > 0 { return "\(errors) \(errors == 1 ? "error" : "errors") against the app's types" }
        var gaps: [String] = []
        if unchecked > 0 {
            gaps.append(
                "\(unchecked) \(unchecked == 1 ? "value" : "values") only running the app can tell about (warnings above)"
            )
        }
        if syntaxErrors > 0 {
            gaps.append(
                "the app's sources have \(syntaxErrors) syntax \(syntaxErrors == 1 ? "error" : "errors"), which may hide fields"
            )
        }
        return gaps.isEmpty
            ? "decodes in the app" : "not fully checked against the app: " + gaps.joined(separator: "; ")
    }
}
