import Foundation
import Liveline
import Yams

/// Loads bridge configuration files: YAML in, a checked ``BridgeConfiguration`` out, or every
/// problem located at `file:line:column` like scenario errors.
///
/// Loading checks every key (with a did-you-mean for typos), builds each source's verifier,
/// reads `env:` secrets, loads each source's scenario with `ScenarioLoader` and checks the
/// event rules against it (beats by id, content-state fields and their types). A configuration
/// that loads is safe to serve.
///
/// ```swift
/// let configuration = try BridgeConfigurationLoader().load(file: "Scenarios/bridge.example.yaml")
/// ```
public struct BridgeConfigurationLoader: Sendable {
    /// Where `env:NAME` secrets and `key-env` are read from.
    public var environment: [String: String]
    /// Whether the secrets must be there. Commands that only read the store (`bridge record`,
    /// `bridge dead-letters`) load the configuration for its rules and stories: an `env:`
    /// secret that is not set is then left out, and its source refuses every webhook
    /// (``SecretsNotLoaded``). The store's own `env:` must still be set.
    public var readsSecrets: Bool

    /// A loader reading secrets from `environment`, and requiring them unless `readsSecrets` is false.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, readsSecrets: Bool = true) {
        self.environment = environment
        self.readsSecrets = readsSecrets
    }

    /// Reads and loads the file at `path`. Scenario paths are relative to its folder.
    public func load(file path: String) throws(BridgeConfigurationError) -> BridgeConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw BridgeConfigurationError(path, "the configuration file \(reason)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw BridgeConfigurationError(path, "the configuration file is not UTF-8 text")
        }
        return try load(yaml: text, file: path)
    }

    /// Loads configuration YAML. `file` names it in diagnostics; scenario paths are relative to
    /// `file`'s folder.
    public func load(yaml: String, file: String) throws(BridgeConfigurationError) -> BridgeConfiguration {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: yaml, ScenarioLoader.resolver) else {
                throw BridgeConfigurationError(
                    file, "the file is empty; expected a configuration starting with 'liveline-bridge: 1'")
            }
            root = node
        } catch let error as BridgeConfigurationError {
            throw error
        } catch let error as YamlError {
            throw BridgeConfigurationError(diagnostics: [ScenarioLoader.diagnostic(for: error, file: file)])
        } catch {
            throw BridgeConfigurationError(file, "YAML syntax: \(error)")
        }
        let directory = (file as NSString).deletingLastPathComponent
        var reader = BridgeConfigReader(
            file: file, directory: directory, environment: environment, readsSecrets: readsSecrets)
        let configuration = reader.configuration(root)
        guard let configuration, !reader.base.log.hasErrors else {
            throw BridgeConfigurationError(diagnostics: reader.base.log.diagnostics)
        }
        return configuration
    }
}

/// Thrown when a configuration cannot be served; carries every problem found, located.
public struct BridgeConfigurationError: Error, Sendable, CustomStringConvertible {
    /// Every problem found, in file order: errors and warnings.
    public var diagnostics: [Diagnostic]

    /// An error carrying `diagnostics`.
    public init(diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    init(_ file: String, _ message: String) {
        diagnostics = [Diagnostic(.error, SourceLocation(file: file, line: 1, column: 1), message)]
    }

    /// The diagnostics that stop the configuration from being served.
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }

    /// One `file:line:column: error: message` line per problem.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
