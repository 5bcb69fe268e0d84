import ArgumentParser
import Liveline
import LivelineTerminal

/// `liveline plan FILE`
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Fast-forward a scenario under a virtual clock and print every push, with its reason.",
        discussion: """
            Formats:
              table  a timeline: time, event, priority, size, reason, what changed
              jsonl  one JSON object per push: activity, offset, time, event,
                     priority, headers, payload (the exact aps object), bytes, reason
              curl   curl --http2 commands as in Apple's guide; they read
                     $AUTHENTICATION_TOKEN and $ACTIVITY_PUSH_TOKEN (or
                     $PUSH_TO_START_TOKEN) from the environment

            A scenario with android: blocks is planned for both platforms: each of the
            engine's decisions as the APNs push and as the FCM message Android's rules
            make of it, with both reasons (--platform ios or android for one). jsonl
            then gives each FCM message (the HTTP v1 message, without its token), and
            curl the FCM HTTP v1 requests, reading $FCM_ACCESS_TOKEN, $FCM_PROJECT_ID
            and $FCM_REGISTRATION_TOKEN.

            The same file, start and seed always give the same pushes, byte for byte.

            Exit status: 0 success, 1 the file has errors (with --app: or would not
            decode into the app's types), 64 usage error.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, jsonl, curl
    }

    @Argument(help: ArgumentHelp("The scenario file.", valueName: "file"))
    var file: String

    @OptionGroup var app: AppTypesOption

    @Option(help: "Output format: table, jsonl or curl.")
    var format: Format = .table

    @Option(
        help: ArgumentHelp(
            "When the scenario starts, as ISO-8601 (e.g. 2026-11-23T20:00:00Z). Default: now.", valueName: "instant"))
    var start: String?

    @Option(help: "Replace the file's seed (jitter, chance, random and pick).")
    var seed: Int?

    @Option(
        help: ArgumentHelp(
            "ios, android or both. Default: both when the scenario has an android: block, else ios.",
            valueName: "platform"))
    var platform: PlanPlatforms?

    mutating func validate() throws {
        if let start, UTCTime.parse(start) == nil {
            throw ValidationError("--start: expected \(UTCTime.expected), found '\(start)'")
        }
    }

    mutating func run() throws {
        guard let scenario = ScenarioFiles.load(file, app: try app.load()) else { throw ExitCode(1) }
        let startTime = start.flatMap(UTCTime.parse) ?? WallClock().now() / 1000 * 1000
        var run = ScenarioRun(scenario: scenario, start: startTime, seed: seed.map { UInt64(bitPattern: Int64($0)) })
        let platforms = try PlanPlatforms.resolve(platform, for: scenario)
        switch format {
        case .table:
            var table = PlanTable(scenario: scenario, start: startTime, platforms: platforms)
            run.run(into: &table)
            Terminal.out(table.render())
        case .jsonl:
            var sink = PlanJSONL(scenario: scenario, start: startTime, platforms: platforms, emit: Terminal.out)
            run.run(into: &sink)
            sink.finish()
        case .curl:
            var sink = PlanCurl(scenario: scenario, start: startTime, platforms: platforms, emit: Terminal.out)
            Terminal.out(sink.preamble())
            run.run(into: &sink)
            sink.finish()
        }
    }
}
