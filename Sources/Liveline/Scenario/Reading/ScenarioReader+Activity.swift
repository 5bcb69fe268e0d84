import LivelineCore
import Yams

extension ScenarioReader {
    static let activityKeys = [
        "name", "at", "attributes-type", "attributes", "content-state", "relevance", "policy", "beats", "presentation",
        "android",
    ]

    /// One entry of `activities:`. Returns nil, after reporting, when it cannot be played.
    mutating func activity(_ node: Node, filePolicy: PolicyOverrides) -> ActivitySpec? {
        let errorsBefore = log.errorCount
        guard
            let fields = fields(
                of: node, in: "activity", allowed: Self.activityKeys,
                required: [
                    "name": "a name for plans, like match-1",
                    "attributes-type": "the Swift ActivityAttributes type name",
                    "content-state": "the first ContentState, a mapping of its fields",
                ]
            )
        else { return nil }

        var name = ""
        if let node = fields["name"], let text = string(node, "the activity name") {
            if text.isEmpty || !text.unicodeScalars.allSatisfy(Self.isNameCharacter) {
                log.error(
                    location(node),
                    "expected an activity name of lowercase letters, digits, '-', '_' and '.', like match-1; found '\(text)'"
                )
            }
            name = text
        }
        let offset = fields["at"].flatMap { duration($0, "the activity's start (at)") } ?? 0
        let attributesType = fields["attributes-type"].flatMap { string($0, "attributes-type") } ?? ""
        if let node = fields["attributes-type"], attributesType.isEmpty {
            log.error(
                location(node), "expected attributes-type as the Swift ActivityAttributes type name, found nothing")
        }
        let staticScope = TemplateScope(allowsN: false, allowsInput: false, state: nil, place: "in attributes")
        var attributes = ValueTemplate.object([])
        if let node = fields["attributes"] {
            if case .mapping = node, let value = value(node, scope: staticScope) {
                attributes = value
            } else if case .mapping = node {
            } else {
                log.error(
                    location(node),
                    "expected attributes as a mapping of the ActivityAttributes' fields, found \(Self.describe(node))")
            }
        }
        var contentState = ValueTemplate.object([])
        if let node = fields["content-state"] {
            let scope = TemplateScope(
                allowsN: false, allowsInput: false, state: nil, place: "in the first content-state")
            if case .mapping = node, let value = value(node, scope: scope) {
                contentState = value
            } else if case .mapping = node {
            } else {
                log.error(
                    location(node),
                    "expected content-state as a mapping of the ContentState's fields, found \(Self.describe(node))")
            }
        }
        let relevance = fields["relevance"].flatMap { number($0, "relevance (the relevance-score)") }
        var layers = [filePolicy]
        if let node = fields["policy"] { layers.append(policy(node)) }
        var policy = PolicyOverrides.resolve(layers)
        policy.renewal = renewal(
            layers.last(where: { $0.renewal != nil })?.renewal, policy: policy, state: contentState)

        var beats: [BeatSpec] = []
        if let node = fields["beats"] {
            if case .sequence(let items) = node {
                for item in items {
                    if let beat = beat(item, state: contentState) { beats.append(beat) }
                }
            } else {
                log.error(
                    location(node),
                    "expected beats as a list (each item starting with '- '), found \(Self.describe(node))")
            }
        }
        var presentation: Presentation?
        if let node = fields["presentation"] {
            presentation = self.presentation(node, attributes: attributes, state: contentState)
        }
        let android = fields["android"].flatMap { self.android($0, attributes: attributes, state: contentState) }
        guard log.errorCount == errorsBefore else { return nil }
        var spec = ActivitySpec(
            name: name, offset: offset, attributesType: attributesType, attributes: attributes,
            contentState: contentState, relevance: relevance, policy: policy, beats: beats,
            location: location(node), presentation: presentation
        )
        spec.attributesTypeLocation = fields["attributes-type"].map { location($0) }
        spec.attributesLocation = fields["attributes"].map { location($0) }
        spec.contentStateLocation = fields["content-state"].map { location($0) }
        spec.android = android
        return spec
    }

    static func isNameCharacter(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "-" || c == "_" || c == "."
    }
}
