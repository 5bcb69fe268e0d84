import ArgumentParser
import Liveline
import LivelineBridge

/// `liveline bridge wait-ready`: returns once a bridge answers `/readyz`.
struct BridgeWaitReadyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait-ready",
        abstract:
            "Wait until a bridge is ready (GET /readyz answers 200), for scripts that start one in the background.",
        discussion: """
            liveline bridge serve --config bridge.yaml &
            liveline bridge wait-ready --config bridge.yaml
            curl … (the bridge answers)

            The bridge is asked every 100 ms, at the configuration's listen address (as \
            bridge send finds it) or at --url. Prints the address once it is ready.

            Exit status: 0 ready; 1 not ready within --timeout (with its last answer); 64 \
            usage error.
            """
    )

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "Ask at this configuration's listen address (or LIVELINE_BRIDGE_CONFIG's).", valueName: "file.yaml"))
    var config: String?

    @Option(help: ArgumentHelp("The bridge's base URL instead, like http://127.0.0.1:8080.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("How long to wait at most.", valueName: "duration"))
    var timeout = "30s"

    func validate() throws {
        if config != nil, url != nil { throw ValidationError("give --config or --url, not both") }
        guard let millis = DurationText.parse(timeout), millis > 0 else {
            throw ValidationError("--timeout \(timeout) is not \(DurationText.expected)")
        }
    }

    func run() async throws {
        let base: String
        if let url {
            base = url
        } else {
            var option = BridgeConfigOption()
            option.file = config
            try option.validate()
            base = "http://\(try option.load(readsSecrets: false).listen)"
        }
        do {
            try await ReadinessWait(base: base, timeout: .milliseconds(DurationText.parse(timeout) ?? 30_000)).wait()
            Terminal.out("\(base) is ready")
        } catch {
            Terminal.error("liveline bridge wait-ready: \(error)")
            throw ExitCode(1)
        }
    }
}
