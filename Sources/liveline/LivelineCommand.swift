import ArgumentParser
import LivelineTerminal

/// The `liveline` command: parses arguments and hands over to the libraries.
@main
struct LivelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "liveline",
        abstract: "Drive Apple Live Activities from the server side.",
        version: LivelineVersion.text,
        subcommands: [
            PlayCommand.self, PlanCommand.self, ValidateCommand.self, ScaffoldCommand.self, LoadCommand.self,
            ReportCommand.self,
            MockAPNsCommand.self, BridgeCommand.self, ChannelCommand.self, TokenCommand.self,
        ]
    )

    /// Before ArgumentParser: a closed output is a write error, not a signal (see `Terminal`).
    static func main() async {
        StandardStream.ignoreBrokenPipeSignal()
        await main(Array(CommandLine.arguments.dropFirst()))
    }
}
