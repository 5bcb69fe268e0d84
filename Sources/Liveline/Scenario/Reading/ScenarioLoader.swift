import Foundation
import LivelineCore
import Yams

/// A scenario that loaded, with the warnings found on the way.
public struct LoadedScenario: Sendable {
    /// The scenario, checked and ready to play.
    public var scenario: Scenario
    /// Legal but suspicious things, such as more high-priority beats than the budget allows.
    public var warnings: [Diagnostic]
}

/// Loads scenario files: YAML in, a checked `Scenario` out, or every problem, located.
///
/// Loading reads the YAML, checks every key and value, resolves every template name, follows
/// each content-state field's type through the patches, checks the timeline (start first, nothing
/// after the end, the 8-hour limit), and finally plays each activity under a virtual clock to
/// check each payload's size and the budget, and, for an activity with an `android:` block, each
/// FCM message (its size, and values Android would not show as written). A file that loads is
/// safe to play.
///
/// ```swift
/// let loaded = try ScenarioLoader().load(file: "Scenarios/football.yaml")
/// for warning in loaded.warnings { print(warning) }
/// ```
public struct ScenarioLoader: Sendable {
    /// A loader; it keeps nothing between files, so one can load any number of them.
    public init() {}

    /// The largest scenario file read. Load tests multiply one story (`--activities`) rather
    /// than writing it out, so a real scenario is kilobytes.
    public static let maxFileBytes = 8 * 1_048_576

    /// Reads and loads the file at `path`. Diagnostics name `path` as given.
    public func load(file path: String) throws(ScenarioError) -> LoadedScenario {
        let text: String
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard data.count <= Self.maxFileBytes else {
                let megabytes = (Double(data.count) / 1_048_576 * 10).rounded() / 10
                throw ScenarioError(diagnostics: [
                    Diagnostic(
                        .error, SourceLocation(file: path, line: 1, column: 1),
                        "the file is \(megabytes) MB; a scenario may be at most \(Self.maxFileBytes / 1_048_576) MB (for many activities, use copies: liveline load --activities)"
                    )
                ])
            }
            guard let decoded = String(data: data, encoding: .utf8) else {
                throw ScenarioError(diagnostics: [
                    Diagnostic(.error, SourceLocation(file: path, line: 1, column: 1), "the file is not UTF-8 text")
                ])
            }
            text = decoded
        } catch let error as ScenarioError {
            throw error
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw ScenarioError(diagnostics: [
                Diagnostic(.error, SourceLocation(file: path, line: 1, column: 1), "the file \(reason)")
            ])
        }
        return try load(yaml: text, file: path)
    }

    /// Loads scenario YAML. `file` names it in diagnostics.
    public func load(yaml: String, file: String) throws(ScenarioError) -> LoadedScenario {
        var reader = ScenarioReader(file: file)
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: yaml, Self.resolver) else {
                throw ScenarioError(diagnostics: [
                    Diagnostic(
                        .error, SourceLocation(file: file, line: 1, column: 1),
                        "the file is empty; expected a scenario starting with 'liveline: 1'")
                ])
            }
            root = node
        } catch let error as ScenarioError {
            throw error
        } catch let error as YamlError {
            throw ScenarioError(diagnostics: [Self.diagnostic(for: error, file: file)])
        } catch {
            throw ScenarioError(diagnostics: [
                Diagnostic(.error, SourceLocation(file: file, line: 1, column: 1), "YAML syntax: \(error)")
            ])
        }
        var scenario = reader.scenario(root, defaultName: Self.defaultName(for: file))
        if var read = scenario {
            read.activities = read.activities.map(DeclaredArithmetic.apply(to:))
            scenario = read
        }
        if let scenario, !reader.log.hasErrors {
            for activity in scenario.activities { reader.check(activity) }
            if !reader.log.hasErrors {
                DryRun.check(scenario, log: &reader.log)
            }
            if !reader.log.hasErrors {
                AndroidDryRun.check(scenario, log: &reader.log)
            }
        }
        guard let scenario, !reader.log.hasErrors else {
            throw ScenarioError(diagnostics: reader.log.diagnostics)
        }
        return LoadedScenario(scenario: scenario, warnings: reader.log.diagnostics)
    }

    /// YAML 1.2's core schema, not 1.1's: `yes`, `no`, `on` and `off` stay text, and dates stay
    /// text unless tagged `!date`.
    package static var resolver: Resolver {
        var resolver = Resolver.basic.appending(.int).appending(.float).appending(.null)
        if let bool = try? Resolver.Rule(.bool, "^(?:true|True|TRUE|false|False|FALSE)$") {
            resolver = resolver.appending(bool)
        }
        return resolver
    }

    static func defaultName(for file: String) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        if let dot = base.lastIndex(of: "."), dot > base.startIndex { return String(base[..<dot]) }
        return base
    }

    package static func diagnostic(for error: YamlError, file: String) -> Diagnostic {
        func at(_ mark: Mark) -> SourceLocation { SourceLocation(file: file, line: mark.line, column: mark.column) }
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { " (\($0.text) at \($0.mark.line):\($0.mark.column))" } ?? ""
            return Diagnostic(.error, at(mark), "YAML syntax: \(problem)\(detail)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return Diagnostic(.error, at(context.mark), "duplicate key \(keys) in a mapping; each key may appear once")
        case .reader(let problem, _, _, _):
            return Diagnostic(.error, SourceLocation(file: file, line: 1, column: 1), "YAML syntax: \(problem)")
        default:
            return Diagnostic(.error, SourceLocation(file: file, line: 1, column: 1), "YAML syntax: \(error)")
        }
    }
}

extension ScenarioReader {
    static let fileKeys = ["liveline", "name", "bundle-id", "seed", "policy", "activities"]

    /// The whole file. Returns nil when it is too broken to go on.
    mutating func scenario(_ root: Node, defaultName: String) -> Scenario? {
        guard
            let fields = fields(
                of: root, in: "the scenario", allowed: Self.fileKeys,
                required: ["liveline": "the format version, 1", "activities": "the list of activities"]
            )
        else { return nil }
        if let node = fields["liveline"] {
            if case .scalar(let scalar) = node, scalar.string == "1" {
            } else {
                log.error(
                    location(node),
                    "expected liveline: 1 (this Liveline reads format version 1), found \(Self.describe(node))")
            }
        }
        let name = fields["name"].flatMap { string($0, "the scenario name") } ?? defaultName
        scenarioName = name
        let bundleID = fields["bundle-id"].flatMap { string($0, "bundle-id") } ?? "com.example.app"
        if let node = fields["bundle-id"], bundleID.isEmpty || bundleID.contains(where: { $0 == " " || $0 == "/" }) {
            log.error(
                location(node),
                "expected bundle-id as the app's bundle identifier, like com.example.matchday; found '\(bundleID)'")
        }
        var seed: UInt64 = 1
        if let node = fields["seed"], let value = integer(node, "seed") { seed = UInt64(bitPattern: Int64(value)) }
        let filePolicy = fields["policy"].map { policy($0) } ?? PolicyOverrides()

        var activities: [ActivitySpec] = []
        if let node = fields["activities"] {
            if case .sequence(let items) = node, !items.isEmpty {
                var seen: [String: SourceLocation] = [:]
                for item in items {
                    guard let activity = activity(item, filePolicy: filePolicy) else { continue }
                    if let first = seen[activity.name] {
                        log.error(
                            activity.location,
                            "another activity is already named '\(activity.name)' (line \(first.line)); names must be unique"
                        )
                    }
                    seen[activity.name] = activity.location
                    activities.append(activity)
                }
            } else if case .sequence = node {
                log.error(location(node), "activities is empty; expected one or more activities")
            } else {
                log.error(
                    location(node),
                    "expected activities as a list of one or more activities (each item starting with '- '), found \(Self.describe(node))"
                )
            }
        }
        return Scenario(file: file, name: name, bundleID: bundleID, seed: seed, activities: activities)
    }
}
