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
    try BridgeConfigurationLoader(environment: exampleEnvironment).load(file: scenariosDirectory + "/bridge.example.yaml")
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
