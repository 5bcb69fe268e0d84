import ArgumentParser
import Foundation
import LivelineBridge

/// `liveline bridge followers import FILE --key KEY --config FILE`: moves an existing audience
/// into the bridge's store, as `POST /v1/activities/{key}/followers` does, without a running bridge.
struct BridgeFollowersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "followers",
        abstract: "Manage an activity's followers (its audience).",
        subcommands: [Import.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Store the followers of an NDJSON file for an activity key.",
            discussion: """
                One follower a line: {"device": "…", "update-token": "…", "push-to-start-token": "…", "channel": false}. \
                Each line replaces that device's follower. Followers joining a story already under way get one \
                catch-up push from the running bridge. Exit 1 on a bad line (the batches before it stay stored).
                """
        )

        @Argument(help: ArgumentHelp("The NDJSON file.", valueName: "file.ndjson"))
        var file: String

        @Option(help: "The activity key the followers follow (registered already).")
        var key: String

        @OptionGroup var options: BridgeConfigOption

        @Option(help: "Followers stored per transaction.")
        var batch = 1000

        func run() async throws {
            let configuration = try options.load(readsSecrets: false)
            try await options.withStore(configuration) { store in
                do {
                    let report = try await FollowerImport.run(
                        path: file, activityKey: key, store: store, batch: max(1, batch))
                    Terminal.out(
                        "\(key): \(report.total) followers (\(report.created) new, \(report.updated) changed, \(report.unchanged) unchanged)"
                    )
                } catch let failure as FollowerImport.Failure {
                    Terminal.error("liveline bridge followers import: \(failure)")
                    throw ExitCode(1)
                }
            }
        }
    }
}
