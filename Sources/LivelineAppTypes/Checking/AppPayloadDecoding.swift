import Liveline

/// ``ActivityPayloadDecoding`` by the app's own types: what `liveline mock-apns --app` checks
/// every push with.
///
/// Only decode failures are reasons not to render: what cannot be checked statically (a
/// hand-written `init(from:)`, a type not in the sources) is let through, as the device may
/// well decode it; what decodes to a wrong value (a `Date` in UNIX seconds) renders, wrongly,
/// and is said (``contentStateMisreads(attributesType:contentState:)``).
public struct AppPayloadDecoding: ActivityPayloadDecoding {
    public let types: AppTypes
    private let checker: DecodeChecker

    public init(types: AppTypes) {
        self.types = types
        checker = DecodeChecker(types: types)
    }

    public func startProblems(attributesType: String, attributes: StateValue) -> [String] {
        guard let type = types.attributes(named: attributesType) else {
            let known = types.activityAttributes.map(\.name).joined(separator: ", ")
            return [
                "attributes-type \"\(attributesType)\" is not an ActivityAttributes type of the app (it has \(known)); the device does not start it"
            ]
        }
        return reasons(checker.checkAttributes(.known(attributes), of: type))
    }

    public func contentStateProblems(attributesType: String?, contentState: StateValue) -> [String] {
        if let attributesType {
            // An unknown type was already reported on the start; its content cannot be checked.
            guard let type = types.attributes(named: attributesType) else { return [] }
            return reasons(checker.checkContentState(.known(contentState), of: type))
        }
        var byType: [(String, [String])] = []
        for type in types.activityAttributes {
            let found = reasons(checker.checkContentState(.known(contentState), of: type))
            if found.isEmpty { return [] }
            byType.append((type.name, found))
        }
        if byType.count == 1 { return byType[0].1 }
        return [
            "content-state decodes as none of the app's ContentState types: "
                + byType.map { "\($0.0): \($0.1.first ?? "")" }.joined(separator: "; ")
        ]
    }

    public func contentStateMisreads(attributesType: String?, contentState: StateValue) -> [String] {
        let candidates =
            attributesType.map { name in types.attributes(named: name).map { [$0] } ?? [] } ?? types.activityAttributes
        for type in candidates {
            let problems = checker.checkContentState(.known(contentState), of: type)
            if problems.contains(where: { $0.kind == .fails }) { continue }
            return problems.filter { $0.kind == .misread }.map { "rendered, with a wrong value: " + $0.description }
        }
        return []
    }

    private func reasons(_ problems: [DecodeProblem]) -> [String] {
        problems.filter { $0.kind == .fails }.map(\.description)
    }
}
