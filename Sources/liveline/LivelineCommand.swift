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
            MockAPNsCommand.self, MockFCMCommand.self, BridgeCommand.self, ChannelCommand.self, TokenCommand.self,
        ]
    )

    /// Before ArgumentParser: a closed output is a write error, not a signal (see `Terminal`),
    /// and a word that names no command is a usage error, even with `--help`.
    static func main() async {
        StandardStream.ignoreBrokenPipeSignal()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let message = UnknownCommand.message(for: arguments, root: Self.self) {
            Terminal.error(message)
            Terminal.leave(ExitCode.validationFailure.rawValue)
        }
        await main(arguments)
    }
}
