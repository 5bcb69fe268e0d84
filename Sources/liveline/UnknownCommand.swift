import ArgumentParser

/// A word where a command group expects one of its commands, and names none of them
/// (`liveline mock-wns --help`). ArgumentParser would let `--help` print the group's help and
/// exit 0; a misspelled or missing command is a usage error (64) that says so.
enum UnknownCommand {
    /// The error for `arguments` under `root`, or nil when every command word names a command
    /// (options and the arguments of a leaf command are left to ArgumentParser).
    static func message(for arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root._commandName]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return nil }
            guard
                let next = subcommands.first(where: {
                    $0._commandName == argument || $0.configuration.aliases.contains(argument)
                })
            else {
                let names = subcommands.map { $0._commandName }.joined(separator: ", ")
                let group = path.joined(separator: " ")
                return
                    "error: '\(argument)' is not a command of \(group); its commands are \(names) (see \(group) --help)"
            }
            command = next
            path.append(argument)
        }
        return nil
    }
}
