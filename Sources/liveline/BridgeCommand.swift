import ArgumentParser

/// `liveline bridge`: the webhook bridge and the tools beside it.
struct BridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridge",
        abstract: "Turn webhooks and feeds (orders, matches) into Live Activity pushes.",
        subcommands: [
            BridgeServeCommand.self, BridgeWaitReadyCommand.self, BridgeSendCommand.self, BridgeDeadLettersCommand.self,
            BridgeHistoryCommand.self,
            BridgeRecordCommand.self, BridgeFollowersCommand.self,
        ]
    )
}
