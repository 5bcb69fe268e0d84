import ArgumentParser
import Foundation
import Liveline
import LivelineBridge
import LivelineTerminal

/// `--config`, which every bridge command reads the configuration with, and the store it names.
struct BridgeConfigOption: ParsableArguments {
    /// Where the configuration is when `--config` is not given (a container sets it).
    static let variable = "LIVELINE_BRIDGE_CONFIG"

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "The bridge configuration (see Scenarios/bridge.example.yaml); or LIVELINE_BRIDGE_CONFIG.",
            valueName: "file.yaml"))
    var file: String?

    func validate() throws {
        if file == nil, ProcessInfo.processInfo.environment[Self.variable]?.isEmpty ?? true {
            throw ValidationError("give the bridge configuration with --config FILE.yaml (or set \(Self.variable))")
        }
    }

    /// The configuration's path: `--config`, else `LIVELINE_BRIDGE_CONFIG`.
    var config: String { file ?? ProcessInfo.processInfo.environment[Self.variable] ?? "" }

    /// Loads the file, printing located errors (exit 1) the way `validate` does. A command that
    /// only reads the store passes `readsSecrets: false`: webhook and feed secrets need not be set.
    func load(readsSecrets: Bool = true) throws -> BridgeConfiguration {
        do {
            return try BridgeConfigurationLoader(
                environment: ProcessInfo.processInfo.environment, readsSecrets: readsSecrets
            )
            .load(file: config)
        } catch {
            let formatter = DiagnosticFormatter(color: Terminal.colorOnStderr, sources: ScenarioFiles.sources(config))
            for diagnostic in error.diagnostics { Terminal.error(formatter.format(diagnostic)) }
            Terminal.error("\(config): \(CountText.of(error.errors.count, "error"))")
            throw ExitCode(1)
        }
    }

    /// Opens the configured store, runs `body` with it and closes it, whether `body` returns or
    /// throws; a store that cannot be opened is said, with exit 2.
    func withStore<Result>(
        _ configuration: BridgeConfiguration, _ body: (SQLStore) async throws -> Result
    ) async throws -> Result {
        let store: SQLStore
        do {
            try configuration.stateDirectory?.create()
            store = try await SQLStore.open(configuration.store, keepsHistory: configuration.retention.keepsHistory)
        } catch {
            Terminal.error("liveline bridge: \(error)")
            throw ExitCode(2)
        }
        let result: Result
        do {
            result = try await body(store)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        return result
    }
}
