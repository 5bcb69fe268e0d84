import ArgumentParser
import Foundation
import Liveline
import LivelineBridge

/// `liveline bridge history KEY`.
struct BridgeHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print what the bridge sent an activity, why, and what APNs answered, newest first.",
        discussion: """
            Reads the store the configuration names, so it shows every instance's pushes, after \
            restarts too: each push with its kind, priority, the engine's reason, the content-state, \
            APNs' status, reason and apns-id, the instance that sent it, and its fan-outs' failures.
            """
    )

    @Argument(help: "The activity key.")
    var key: String

    @OptionGroup var options: BridgeConfigOption

    @Option(help: "At most this many entries.")
    var limit = 50

    @Option(help: "Only entries older than this id (to page on).")
    var before: Int64?

    func run() async throws {
        let configuration = try options.load(readsSecrets: false)
        let records = try await options.withStore(configuration) { store in
            try await store.pushHistory(activityKey: key, before: before, limit: max(1, limit))
        }
        if records.isEmpty { Terminal.out("no pushes recorded for \(key)") }
        for line in PushHistoryText.lines(records) { Terminal.out(line) }
    }
}
