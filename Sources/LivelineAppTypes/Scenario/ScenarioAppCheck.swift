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
    /// failures as errors, what cannot be checked statically as warnings.
    public func diagnostics(for scenario: Scenario) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for activity in scenario.activities {
            diagnostics += check(activity)
        }
        var seen: Set<Diagnostic> = []
        return diagnostics.filter { seen.insert($0).inserted }
    }

    private func check(_ activity: ActivitySpec) -> [Diagnostic] {
        guard let attributes = types.attributes(named: activity.attributesType) else {
            let known = types.activityAttributes.map(\.name)
            let hint = DidYouMean.hint(for: activity.attributesType, among: known.map { $0.split(separator: ".").last.map(String.init) ?? $0 })
            let message = "attributes-type \(activity.attributesType) is not an ActivityAttributes type in the app's sources "
                + "(found \(known.joined(separator: ", "))): a start with it would be dropped on the device\(hint)"
            return [Diagnostic(.error, activity.attributesTypeLocation ?? activity.location, message)]
        }
        let initial = activity.contentState.fields ?? []
        var problems = checker.checkAttributes(
            CheckedValue(activity.attributes, state: []), of: attributes, location: activity.attributesLocation ?? activity.location
        )
        problems += checker.checkContentState(
            CheckedValue(activity.contentState, state: initial), of: attributes, location: activity.contentStateLocation ?? activity.location
        )
        let stateType = types.resolve("ContentState", from: attributes.name)
        for beat in activity.beats {
            for entry in beat.patch {
                problems += checkPatch(entry, stateType: stateType, initial: initial)
            }
        }
        return problems.map { problem in
            Diagnostic(problem.kind == .fails ? .error : .warning, problem.location ?? activity.location, problem.description)
        }
    }

    /// Checks one `set:` entry against the field its path names.
    private func checkPatch(_ entry: PatchEntry, stateType: AppTypeDeclaration?, initial: [ValueField]) -> [DecodeProblem] {
        guard var current = stateType else { return [] }
        let path = "content-state." + entry.path.joined(separator: ".")
        var field: (type: SwiftTypeReference, owner: String, declaration: SwiftDeclaration)?
        for (depth, key) in entry.path.enumerated() {
            if depth > 0 {
                guard let next = field.flatMap({ resolveStruct($0.type, from: $0.owner) }) else { return [] }
                current = next
            }
            guard case .structure(let type) = current, case .synthesized = type.decoding else { return [] }
            guard let found = type.decodedFields.first(where: { $0.key == key }) else {
                let hint = DidYouMean.hint(for: key, among: type.decodedFields.map(\.key))
                return [DecodeProblem(
                    kind: .unchecked, path: path, message: "\(path) is ignored by the app: \(type.name) has no such key\(hint)",
                    location: entry.location, declaration: type.declaration
                )]
            }
            field = (found.property.type, type.name, found.property.declaration)
        }
        guard let field else { return [] }
        return checker.check(
            CheckedValue(entry.value, state: initial), as: field.type, scope: field.owner, path: path,
            declaration: field.declaration, location: entry.location
        )
    }

    private func resolveStruct(_ type: SwiftTypeReference, from scope: String) -> AppTypeDeclaration? {
        switch type {
        case .optional(let wrapped): return resolveStruct(wrapped, from: scope)
        case .named(let name): return types.resolve(name, from: scope)
        default: return nil
        }
    }
}
