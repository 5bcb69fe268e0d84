import Foundation
import Liveline
import Yams

extension BridgeConfigReader {
    /// Keys only a webhook source (the default kind) takes.
    static let webhookKeys = ["verify", "secrets", "tolerance", "rate-limit"]
    /// Keys only a stream source (`kind: stream`) takes.
    static let streamKeys = [
        "url", "headers", "format", "heartbeat-timeout", "keep-alive", "reconnect", "recover", "ca-file",
    ]
    static let sourceKeys =
        [
            "kind", "event-id", "event-type", "activity-key", "order-key", "order",
            "statuses", "scenario", "activity", "events", "unknown-events",
        ] + webhookKeys + streamKeys

    mutating func sources(_ node: Node) -> [SourceConfiguration] {
        guard case .mapping(let mapping) = node else {
            error(
                node, "expected sources as a mapping of source names to sources, found \(ScenarioReader.describe(node))"
            )
            return []
        }
        guard !mapping.isEmpty else {
            error(node, "expected at least one source under sources (a name, then its verify:, scenario: and events:)")
            return []
        }
        var sources: [SourceConfiguration] = []
        for (key, value) in mapping {
            guard let name = base.string(key, "a source name") else { continue }
            guard !name.isEmpty, name.utf8.allSatisfy({ Self.isNameByte($0) }) else {
                error(
                    key,
                    "a source name goes into the URL /v1/webhooks/{name}; use letters, digits, '-' and '_' only, found '\(name)'"
                )
                continue
            }
            if let source = source(value, name: name, keyNode: key) { sources.append(source) }
        }
        return sources
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 45
            || byte == 95
    }

    mutating func source(_ node: Node, name: String, keyNode: Node) -> SourceConfiguration? {
        let what = "source '\(name)'"
        let isStream = kind(of: node, source: name)
        var required = [
            "event-type": "where the event type is, like /type",
            "activity-key": "where the activity key is, like /data/order_id",
            "scenario": "the scenario file its activities follow",
            "events": "what each event type does",
        ]
        if isStream {
            required["url"] = "the http:// or https:// URL of the stream"
        } else {
            required["verify"] = "how its webhooks are authenticated, like standard-webhooks or hmac"
        }
        guard let fields = base.fields(of: node, in: what, allowed: Self.sourceKeys, required: required) else {
            return nil
        }
        for key in fields.order where (isStream ? Self.webhookKeys : Self.streamKeys).contains(key) {
            let node = fields.keyNode(key) ?? node
            if isStream {
                error(
                    node,
                    "'\(key)' applies to webhook sources; source '\(name)' reads a stream (kind: stream), which it opens itself"
                )
            } else {
                error(
                    node, "'\(key)' applies to stream sources; add 'kind: stream' to source '\(name)' to read a stream")
            }
        }

        var verification: Verification?
        var stream: StreamSettings?
        if isStream {
            verification = Verification(scheme: .none, verifier: NoVerification())
            stream = self.stream(fields, source: name, sourceNode: node)
        } else {
            // A misspelt `secrets` is reported once, with its did-you-mean, not again as missing.
            let secretsMisspelt = Self.keys(of: node).contains {
                $0 != "secrets" && DidYouMean.suggestion(for: $0, among: Self.sourceKeys) == "secrets"
            }
            let secrets = fields["secrets"].map { self.secrets($0, source: name) } ?? (secretsMisspelt ? [] : nil)
            var tolerance = TimestampTolerance.standard
            if let node = fields["tolerance"], let millis = base.duration(node, "tolerance") {
                tolerance = TimestampTolerance(seconds: millis / 1000)
            }
            verification = fields["verify"].flatMap {
                self.verification(
                    $0, source: name, secrets: secrets, secretsNode: fields["secrets"], tolerance: tolerance,
                    sourceNode: node)
            }
        }

        let (eventID, missingEventID) = fields["event-id"].map { self.eventID($0) } ?? (nil, .refuse)
        let eventType = fields["event-type"].flatMap { self.valueLocation($0, "event-type") }
        let activityKey = fields["activity-key"].flatMap { self.valueLocation($0, "activity-key") }
        let order = self.order(fields, source: name, sourceNode: node)

        var unknownEvents = UnknownEventPolicy.ignore
        if let node = fields["unknown-events"],
            let value = base.choice(
                node, "unknown-events", [("ignore", UnknownEventPolicy.ignore), ("reject", .reject)])
        {
            unknownEvents = value
        }

        var rateLimit = isStream ? nil : defaultRateLimit
        if !isStream, let node = fields["rate-limit"] { rateLimit = self.rateLimit(node) ?? nil }
        if isStream, fields.has("recover"), !fields.has("event-id"), let node = fields.keyNode("recover") {
            error(
                node,
                "recover needs 'event-id': recovered events are told from those the stream already delivered by their id"
            )
        }

        guard let scenarioNode = fields["scenario"], let scenario = self.scenario(scenarioNode) else { return nil }
        var activityIndex = 0
        if let node = fields["activity"], let activityName = base.string(node, "activity") {
            let names = scenario.activities.map(\.name)
            if let index = names.firstIndex(of: activityName) {
                activityIndex = index
            } else {
                error(node, "\(scenario.file) has no activity '\(activityName)'\(Self.hint(activityName, names))")
                return nil
            }
        }
        let events =
            fields["events"].map { self.events($0, activity: scenario.activities[activityIndex], scenario: scenario) }
            ?? [:]
        guard let verification, let eventType, let activityKey, !isStream || stream != nil else { return nil }
        return SourceConfiguration(
            name: name, scheme: verification.scheme, verifier: verification.verifier, eventID: eventID,
            eventType: eventType, activityKey: activityKey, order: order, scenario: scenario,
            activityIndex: activityIndex,
            events: events, unknownEvents: unknownEvents, rateLimit: rateLimit, stream: stream,
            missingEventID: missingEventID,
            location: base.location(keyNode))
    }

    /// `event-id: /id`, or `event-id: {from: /id, when-missing: refuse | body-hash}` to say what
    /// an event whose id is missing, empty or only whitespace gets.
    mutating func eventID(_ node: Node) -> (ValueLocation?, MissingEventIDPolicy) {
        guard case .mapping = node else { return (valueLocation(node, "event-id"), .refuse) }
        guard
            let fields = base.fields(
                of: node, in: "event-id", allowed: ["from", "when-missing"],
                required: ["from": "where the event id is, like /id"]
            )
        else { return (nil, .refuse) }
        let location = fields["from"].flatMap { valueLocation($0, "event-id's from") }
        var policy = MissingEventIDPolicy.refuse
        if let node = fields["when-missing"],
            let value = base.choice(
                node, "when-missing", [("refuse", MissingEventIDPolicy.refuse), ("body-hash", .bodyHash)])
        {
            policy = value
        }
        return (location, policy)
    }

    /// `kind: webhook` (the default) or `kind: stream`; whether the source is a stream. A wrong
    /// kind is reported and read as a webhook source.
    private mutating func kind(of node: Node, source: String) -> Bool {
        guard case .mapping(let mapping) = node,
            let kindNode = mapping.first(where: { $0.key.scalar?.string == "kind" })?.value
        else { return false }
        return base.choice(kindNode, "kind", [("webhook", false), ("stream", true)]) ?? false
    }

    /// The keys a mapping node spells, as written.
    static func keys(of node: Node) -> [String] {
        guard case .mapping(let mapping) = node else { return [] }
        return mapping.compactMap { $0.key.scalar?.string }
    }

    /// "; did you mean 'x'?" or "; expected one of: a, b".
    static func hint(_ word: String, _ candidates: [String]) -> String {
        if let suggestion = DidYouMean.suggestion(for: word, among: candidates) {
            return "; did you mean '\(suggestion)'?"
        }
        return candidates.isEmpty ? "" : "; expected one of: \(candidates.joined(separator: ", "))"
    }

    /// `/pointer` or `header:Name`.
    mutating func valueLocation(_ node: Node, _ what: String) -> ValueLocation? {
        guard let text = base.string(node, what) else { return nil }
        do throws(JSONPointerError) {
            return try ValueLocation(parsing: text)
        } catch {
            self.error(
                node, "expected \(what) as a JSON Pointer into the body (like /data/id) or header:Name; \(error)")
            return nil
        }
    }

    /// The secrets, with `env:NAME` entries read from the environment.
    mutating func secrets(_ node: Node, source: String) -> [String] {
        let items: [Node]
        switch node {
        case .sequence(let list): items = Array(list)
        case .scalar: items = [node]
        default:
            error(node, "expected secrets as a list of secrets (or env:NAME), found \(ScenarioReader.describe(node))")
            return []
        }
        var secrets: [String] = []
        for item in items {
            guard let text = base.string(item, "a secret") else { continue }
            if text.hasPrefix("env:") {
                let name = String(text.dropFirst(4))
                guard let value = environment[name], !value.isEmpty else {
                    if readsSecrets {
                        error(item, "the environment variable \(name) is not set (a secret of source '\(source)')")
                    } else {
                        sourcesWithoutSecrets.insert(source)
                        secrets.append(Self.unloadedSecret)
                    }
                    continue
                }
                secrets.append(value)
            } else {
                secrets.append(text)
            }
        }
        return secrets
    }

    mutating func order(_ fields: Fields, source: String, sourceNode: Node) -> OrderRule? {
        let location = fields["order-key"].flatMap { valueLocation($0, "order-key") }
        var kind: OrderRule.Kind?
        if let node = fields["order"] {
            kind = base.choice(
                node, "order",
                [
                    ("sequence", OrderRule.Kind.sequence), ("timestamp", .timestamp), ("status-rank", .statusRank([])),
                ])
        }
        if case .statusRank = kind {
            guard let node = fields["statuses"] else {
                error(
                    fields["order"] ?? sourceNode,
                    "order: status-rank needs 'statuses', the statuses from first to last")
                return nil
            }
            guard case .sequence(let items) = node, !items.isEmpty else {
                error(
                    node,
                    "expected statuses as a list of statuses, first to last, found \(ScenarioReader.describe(node))")
                return nil
            }
            var statuses: [String] = []
            for item in items {
                guard let status = base.string(item, "a status") else { continue }
                if statuses.contains(status) {
                    error(item, "status '\(status)' is listed twice; each status has one rank")
                }
                statuses.append(status)
            }
            kind = .statusRank(statuses)
        } else if let node = fields["statuses"] {
            error(node, "statuses only applies with order: status-rank")
        }
        switch (fields.has("order-key"), fields.has("order")) {
        case (true, false):
            error(fields["order-key"] ?? sourceNode, "order-key needs 'order': sequence, timestamp or status-rank")
        case (false, true):
            error(fields["order"] ?? sourceNode, "order needs 'order-key', where the order key is, like /created")
        default: break
        }
        guard let location, let kind else { return nil }
        return OrderRule(location: location, kind: kind)
    }

    /// The scenario file, relative to the configuration's folder, loaded and checked.
    mutating func scenario(_ node: Node) -> Scenario? {
        guard let path = base.string(node, "scenario") else { return nil }
        let resolved = resolve(path)
        guard FileManager.default.fileExists(atPath: resolved) else {
            error(node, "the scenario file '\(path)' does not exist (looked for \(resolved))")
            return nil
        }
        do throws(ScenarioError) {
            return try ScenarioLoader().load(file: resolved).scenario
        } catch {
            self.error(
                node, "the scenario '\(path)' does not load (\(CountText.of(error.errors.count, "error")), below)")
            for diagnostic in error.errors { base.log.error(diagnostic.location, diagnostic.message) }
            return nil
        }
    }
}
