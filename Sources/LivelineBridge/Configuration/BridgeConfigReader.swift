import Foundation
import Liveline
import Yams

/// Reads a bridge configuration's YAML nodes, collecting every problem located. It reads the
/// nodes with Liveline's scenario reader helpers, so messages read the same as scenario errors.
/// The parts live in extensions: `+Source`, `+Stream` (a stream source's feed), `+Verify`,
/// `+Events`, `+APNs` (`apns:` and the variables that stand in for it).
struct BridgeConfigReader {
    var base: ScenarioReader
    let directory: String
    let environment: [String: String]
    /// false: an `env:` secret that is not set is left out (see ``BridgeConfigurationLoader/readsSecrets``).
    let readsSecrets: Bool
    /// Sources with a secret left out: their verifier refuses everything.
    var sourcesWithoutSecrets: Set<String> = []
    /// Set before sources are read: `verify: none` depends on it.
    var listen = ListenAddress.standard
    /// Set before sources are read: the limit of each source that does not set its own.
    var defaultRateLimit: RateLimit?

    init(file: String, directory: String, environment: [String: String], readsSecrets: Bool = true) {
        base = ScenarioReader(file: file)
        self.directory = directory
        self.environment = environment
        self.readsSecrets = readsSecrets
    }

    /// What stands for a secret left out: never used to verify (the source's verifier is
    /// ``SecretsNotLoaded``), shaped as `user:password` so that every scheme reads it.
    static let unloadedSecret = "secret-not-loaded:secret-not-loaded"

    static let fileKeys = [
        "liveline-bridge", "listen", "store", "apns", "fcm", "api-keys", "body-limit", "body-keys", "body-depth",
        "max-connections", "idle-timeout", "drain-timeout", "retention", "rate-limit", "app", "sources",
    ]

    mutating func error(_ node: Node, _ message: String) { base.log.error(base.location(node), message) }

    /// Where problems with the environment are reported: they belong to no line of the file.
    var fileStart: SourceLocation { SourceLocation(file: base.file, line: 1, column: 1) }

    /// Replaces the file's `listen` when set (a container sets it rather than edit the file).
    static let listenVariable = "LIVELINE_BRIDGE_LISTEN"

    /// The whole file; nil when it is too broken to go on.
    mutating func configuration(_ root: Node) -> BridgeConfiguration? {
        guard
            let fields = base.fields(
                of: root, in: "the bridge configuration", allowed: Self.fileKeys,
                required: ["liveline-bridge": "the format version, 1", "sources": "the webhook senders, by name"]
            )
        else { return nil }
        if let node = fields["liveline-bridge"], base.string(node, "liveline-bridge") != "1" {
            error(
                node,
                "expected liveline-bridge: 1 (this Liveline reads format version 1), found \(ScenarioReader.describe(node))"
            )
        }
        if let text = environment[Self.listenVariable], !text.isEmpty {
            if let address = ListenAddress(parsing: text) {
                listen = address
            } else {
                base.log.error(
                    fileStart,
                    "\(Self.listenVariable)=\(text) is not host:port, like 0.0.0.0:8080 or [::1]:8080 (it replaces the file's listen)"
                )
            }
        } else if let node = fields["listen"], let text = base.string(node, "listen") {
            if let address = ListenAddress(parsing: text) {
                listen = address
            } else {
                error(
                    node,
                    "expected listen as host:port, like 127.0.0.1:8080 or [::1]:8080, found \(ScenarioReader.describe(node))"
                )
            }
        }
        // Without `store:`, a file of this configuration's own under the state directory.
        let store: StoreLocation
        var stateDirectory: BridgeStateDirectory?
        if let node = fields["store"] {
            store = self.store(node) ?? .standard
        } else {
            let directory = BridgeStateDirectory(environment: environment)
            stateDirectory = directory
            store = directory.store(forConfiguration: base.file)
        }
        let apns = self.apns(fields["apns"])
        let apiKeys = fields["api-keys"].map { self.apiKeys($0) } ?? []
        var bodyLimit = BridgeConfiguration.standardBodyLimit
        if let node = fields["body-limit"], let value = self.bodyLimit(node) { bodyLimit = value }
        var jsonLimits = BridgeConfiguration.standardJSONLimits
        if let node = fields["body-keys"], let value = wholeNumber(node, "body-keys", 1...10_000_000) {
            jsonLimits.keys = value
        }
        if let node = fields["body-depth"], let value = wholeNumber(node, "body-depth", 1...512) {
            jsonLimits.depth = value
        }
        var maxConnections = BridgeConfiguration.standardMaxConnections
        if let node = fields["max-connections"], let value = wholeNumber(node, "max-connections", 1...1_000_000) {
            maxConnections = value
        }
        var idleTimeout = BridgeConfiguration.standardIdleTimeout
        if let node = fields["idle-timeout"], let millis = base.duration(node, "idle-timeout") {
            if (1000...3_600_000).contains(millis) {
                idleTimeout = .milliseconds(millis)
            } else {
                error(node, "expected idle-timeout from 1s to 1h, found \(ScenarioReader.describe(node))")
            }
        }
        var drainTimeout = BridgeConfiguration.standardDrainTimeout
        if let node = fields["drain-timeout"], let millis = base.duration(node, "drain-timeout") {
            if (1000...120_000).contains(millis) {
                drainTimeout = .milliseconds(millis)
            } else {
                error(
                    node,
                    "expected drain-timeout from 1s to 2m (under the orchestrator's grace period, 30 s in Kubernetes), found \(ScenarioReader.describe(node))"
                )
            }
        }
        let retention = fields["retention"].map { self.retention($0) } ?? .standard
        if let node = fields["rate-limit"] { defaultRateLimit = rateLimit(node) ?? nil }
        let sources = fields["sources"].map { self.sources($0) } ?? []
        var configuration = BridgeConfiguration(
            file: base.file, listen: listen, store: store, apns: apns, apiKeys: apiKeys, bodyLimit: bodyLimit,
            jsonLimits: jsonLimits, maxConnections: maxConnections, idleTimeout: idleTimeout,
            drainTimeout: drainTimeout, retention: retention, sources: sources,
            stateDirectory: stateDirectory)
        configuration.fcm = fcm(fields["fcm"])
        if let node = fields["app"] {
            configuration.app = appPaths(node)
            configuration.appLocation = base.location(node)
        }
        return configuration
    }

    /// A whole number in `range`, or nil with the error reported.
    mutating func wholeNumber(_ node: Node, _ what: String, _ range: ClosedRange<Int>) -> Int? {
        guard let value = node.scalar.flatMap({ Int($0.string) }), range.contains(value) else {
            error(
                node,
                "expected \(what) as a whole number from \(range.lowerBound) to \(range.upperBound), found \(ScenarioReader.describe(node))"
            )
            return nil
        }
        return value
    }

    /// `app: PATH` or a list of paths: the app's Swift source, resolved against this file's
    /// folder. Only named here; the CLI reads it (the bridge never parses Swift).
    mutating func appPaths(_ node: Node) -> [String] {
        let items: [Node]
        switch node {
        case .sequence(let sequence) where !sequence.isEmpty: items = Array(sequence)
        case .scalar: items = [node]
        default:
            error(
                node,
                "expected app as the path of the app's Swift source (a file or folder) or a list of them, found \(ScenarioReader.describe(node))"
            )
            return []
        }
        var paths: [String] = []
        for item in items {
            guard let path = base.string(item, "app") else { continue }
            guard FileManager.default.fileExists(atPath: resolve(path)) else {
                error(item, "app: '\(path)' does not exist (looked for \(resolve(path)))")
                continue
            }
            paths.append(resolve(path))
        }
        return paths
    }

    /// A path as written, or resolved against the configuration file's folder when relative.
    func resolve(_ path: String) -> String {
        if path.hasPrefix("/") || directory.isEmpty { return path }
        return directory + "/" + path
    }

    /// `sqlite:PATH`, a `postgres://` URL, or `env:NAME` holding either, so a URL with a
    /// password can come from a secret (a Kubernetes Secret, a compose environment).
    mutating func store(_ node: Node) -> StoreLocation? {
        guard var text = base.string(node, "store") else { return nil }
        if text.hasPrefix("env:") {
            let name = String(text.dropFirst(4))
            guard let value = environment[name], !value.isEmpty else {
                error(
                    node,
                    "store reads the environment variable \(name), which is not set (set it to sqlite:PATH or a postgres:// URL)"
                )
                return nil
            }
            text = value
        }
        do {
            return try StoreLocation(parsing: text)
        } catch {
            self.error(
                node,
                "expected store as sqlite:PATH (like sqlite:/var/lib/liveline/bridge.sqlite) or a postgres://user:password@host:port/database URL: \(error.cause)"
            )
        }
        return nil
    }

    mutating func apiKeys(_ node: Node) -> [APIKeyHash] {
        guard case .sequence(let items) = node else {
            error(node, "expected api-keys as a list of sha256:<hex> entries, found \(ScenarioReader.describe(node))")
            return []
        }
        var keys: [APIKeyHash] = []
        for item in items {
            guard let text = base.string(item, "an API key hash") else { continue }
            if let key = APIKeyHash(parsing: text) {
                keys.append(key)
            } else {
                // Never echo the entry: it may be a key written in by mistake.
                error(
                    item,
                    "expected an API key as sha256:<64 hex digits>, the SHA-256 of the key (make one with: printf %s \"$KEY\" | sha256sum); keys themselves never go in this file"
                )
            }
        }
        return keys
    }

    /// `retention: {events: 7d, dead-letters: 30d, batch: 500, batch-time: 500us, history: on}`:
    /// the periods each a duration (days allowed, like `7d`) or `forever`; the most rows a prune
    /// batch deletes, and the time a batch aims at; `history: off` writes no delivery history. A
    /// key left out keeps its default.
    mutating func retention(_ node: Node) -> RetentionPolicy {
        var policy = RetentionPolicy.standard
        guard
            let fields = base.fields(
                of: node, in: "retention", allowed: ["events", "dead-letters", "batch", "batch-time", "history"],
                required: [:])
        else { return policy }
        if let node = fields["events"], let value = retentionPeriod(node, "retention.events") { policy.events = value }
        if let node = fields["history"] {
            switch node.scalar?.string {
            case "on", "true": policy.keepsHistory = true
            case "off", "false": policy.keepsHistory = false
            default:
                error(node, "expected retention.history as on or off, found \(ScenarioReader.describe(node))")
            }
        }
        if let node = fields["dead-letters"], let value = retentionPeriod(node, "retention.dead-letters") {
            policy.deadLetters = value
        }
        if let node = fields["batch"] {
            if let rows = node.scalar.flatMap({ Int($0.string) }), (1...100_000).contains(rows) {
                policy.batch = rows
            } else {
                error(
                    node,
                    "expected retention.batch as a number of rows from 1 to 100000, found \(ScenarioReader.describe(node))"
                )
            }
        }
        if let node = fields["batch-time"] {
            if let time = batchTime(node.scalar?.string ?? ""), time >= .microseconds(100), time <= .seconds(1) {
                policy.batchTime = time
            } else {
                error(
                    node,
                    "expected retention.batch-time as a duration from 100us to 1s, like 500us or 2ms, found \(ScenarioReader.describe(node))"
                )
            }
        }
        return policy
    }

    /// A prune batch's time: microseconds (`500us`) or a duration (`2ms`).
    private func batchTime(_ text: String) -> Duration? {
        if text.hasSuffix("us") {
            return Int64(text.dropLast(2)).map { .microseconds($0) }
        }
        return DurationText.parse(text).map { .milliseconds($0) }
    }

    /// A retention period: `7d`, `36h`, `2m`, or `forever` (`.some(nil)`); nil after an error.
    private mutating func retentionPeriod(_ node: Node, _ what: String) -> Duration?? {
        let text = node.scalar?.string ?? ""
        if text == "forever" { return .some(nil) }
        var millis: Millis?
        if text.hasSuffix("d"), let days = Int64(text.dropLast()), days <= 36_500 {
            millis = days * 86_400_000
        } else {
            millis = DurationText.parse(text)
        }
        guard let millis, millis >= 60_000 else {
            error(
                node,
                "expected \(what) as a period of at least 1m, like 7d, 36h or 30m, or forever, found \(ScenarioReader.describe(node))"
            )
            return nil
        }
        return .milliseconds(millis)
    }

    /// Bytes, or a number with KiB or MiB.
    mutating func bodyLimit(_ node: Node) -> Int? {
        let text = node.scalar?.string ?? ""
        var value: Int?
        for (suffix, scale) in [("KiB", 1024), ("MiB", 1024 * 1024), ("", 1)] where text.hasSuffix(suffix) {
            if let number = Int(text.dropLast(suffix.count)) { value = number * scale }
            break
        }
        guard let value, value > 0, value <= 64 * 1024 * 1024 else {
            error(
                node,
                "expected body-limit as bytes or a size like 256KiB or 1MiB (at most 64MiB), found \(ScenarioReader.describe(node))"
            )
            return nil
        }
        return value
    }

    /// `50/s`, `3000/min`, `{rate: 50/s, burst: 200}`, or `none`. The outer nil is an error
    /// (reported); `.some(nil)` is `none`.
    mutating func rateLimit(_ node: Node) -> RateLimit?? {
        let expected = "expected rate-limit as a rate like 50/s or 3000/min, {rate: 50/s, burst: 200}, or none"
        switch node {
        case .scalar(let scalar):
            if scalar.string == "none" { return .some(nil) }
            guard let limit = RateLimit(parsing: scalar.string) else {
                error(node, "\(expected), found \(ScenarioReader.describe(node))")
                return nil
            }
            return limit
        case .mapping:
            guard
                let fields = base.fields(
                    of: node, in: "rate-limit", allowed: ["rate", "burst"],
                    required: ["rate": "the steady rate, like 50/s"]
                ), let rateNode = fields["rate"]
            else { return nil }
            guard let text = rateNode.scalar?.string, var limit = RateLimit(parsing: text) else {
                error(
                    rateNode,
                    "expected rate as a rate like 50/s, 3000/min or 10/h, found \(ScenarioReader.describe(rateNode))")
                return nil
            }
            if let burstNode = fields["burst"] {
                guard let burst = burstNode.scalar.flatMap({ Int($0.string) }), burst >= 1, burst <= 1_000_000 else {
                    error(
                        burstNode,
                        "expected burst as a whole number of requests from 1 to 1000000, found \(ScenarioReader.describe(burstNode))"
                    )
                    return nil
                }
                limit.burst = burst
            }
            return limit
        default:
            error(node, "\(expected), found \(ScenarioReader.describe(node))")
            return nil
        }
    }
}
