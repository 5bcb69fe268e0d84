import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// The repository's Scenarios folder, where the example configuration and delivery.yaml live.
let scenariosDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Scenarios").path

/// The secrets the example configuration reads with `env:`.
let exampleEnvironment = [
    "DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo",
    "UBER_SIGNING_KEY": "uber-demo",
    "ORDERS_WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
]

/// Loads Scenarios/bridge.example.yaml.
func loadExample() throws -> BridgeConfiguration {
    try BridgeConfigurationLoader(environment: exampleEnvironment).load(
        file: scenariosDirectory + "/bridge.example.yaml")
}

/// A configuration as if written at Scenarios/test-bridge.yaml, so `scenario: delivery.yaml` resolves.
let testConfigurationFile = scenariosDirectory + "/test-bridge.yaml"

/// The errors loading `yaml` reports; none when it loads.
func configurationErrors(_ yaml: String, environment: [String: String] = [:]) -> [Diagnostic] {
    do {
        _ = try BridgeConfigurationLoader(environment: environment).load(yaml: yaml, file: testConfigurationFile)
        return []
    } catch {
        return error.errors
    }
}

/// `base` with `old` replaced by `new`, which must be there.
func replacing(_ old: String, with new: String, in base: String) -> String {
    precondition(base.contains(old), "the base configuration has no '\(old)'")
    return base.replacingOccurrences(of: old, with: new)
}

/// Expects loading `yaml` (as Scenarios/test-bridge.yaml) to report `message` at `line:column`.
func expectConfigurationError(
    _ yaml: String, _ line: Int, _ column: Int, _ message: String, environment: [String: String] = [:],
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let found = configurationErrors(yaml, environment: environment)
    let expected = Diagnostic(
        .error, Liveline.SourceLocation(file: testConfigurationFile, line: line, column: column), message)
    #expect(
        found.contains(expected), "expected \(expected)\nfound:\n\(found.map(\.description).joined(separator: "\n"))",
        sourceLocation: sourceLocation)
}
