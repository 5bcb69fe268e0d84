import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTerminal
import NIOCore
import NIOPosix

/// `liveline play FILE`
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a scenario in real time against APNs, or against the embedded mock.",
        discussion: """
            With no credentials and no --apns-url, Liveline starts its mock APNs
            in-process (TLS on loopback, JWTs checked) and plays against it, drawing
            each activity as the phone would hold it. With credentials it plays to
            your phone:

              liveline play Scenarios/football.yaml --speed 30 --token <token> \\
                --key AuthKey_ABC123DEFG.p8 --key-id ABC123DEFG \\
                --team-id DEF123GHIJ --topic com.example.matchday

            --speed compresses the story (beat times, !date offsets); the policy
            stays in real time (min-interval, budget, stale-after). Ctrl-C ends the
            activities with an immediate dismissal (unless --no-end), then exits.

            Targets: --token for activities the app started, --start-token for
            push-to-start, --channel for broadcasts; NAME=VALUE picks the activity
            in a file with several.

            Exit status: 0 the story played to its end; 1 the file has errors (with
            --app: or would not decode into the app's types) or a
            target is missing; 2 APNs refused the setup (topic, key, environment);
            3 APNs stopped some activities (410) or pushes failed; 130 interrupted;
            64 usage error.
            """
    )

    enum Environment: String, ExpressibleByArgument, CaseIterable {
        case sandbox, production
    }

    @Argument(help: ArgumentHelp("The scenario file.", valueName: "file"))
    var file: String

    @OptionGroup var app: AppTypesOption

    @Option(help: "How much faster than real time the story runs.")
    var speed: Double = 1

    @Option(
        name: .customLong("activity"),
        help: ArgumentHelp("Play only this activity (repeatable). Default: all.", valueName: "name"))
    var only: [String] = []

    @Option(
        name: .customLong("token"),
        help: ArgumentHelp("An update token (the activity's pushTokenUpdates), or NAME=TOKEN.", valueName: "hex"))
    var tokens: [String] = []

    @Option(
        name: .customLong("start-token"),
        help: ArgumentHelp("A push-to-start token (pushToStartTokenUpdates), or NAME=TOKEN.", valueName: "hex"))
    var startTokens: [String] = []

    @Option(
        name: .customLong("channel"),
        help: ArgumentHelp("A broadcast channel id for updates, or NAME=ID.", valueName: "id"))
    var channels: [String] = []

    @Option(help: "APNs environment: sandbox (development builds) or production.")
    var env: Environment = .sandbox

    @Option(
        name: .customLong("apns-url"),
        help: ArgumentHelp(
            "Send to this server instead, e.g. a mock: https://127.0.0.1:2197 (or http:// for h2c).", valueName: "url"))
    var apnsURL: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("Trust these PEM certificates (a mock's self-signed one).", valueName: "file.pem"))
    var caFile: String?

    @Option(help: "HTTP/2 connections to APNs.")
    var connections: Int = 1

    @OptionGroup var credentials: CredentialOptions

    @Option(
        help: ArgumentHelp(
            "The app's bundle id (apns-topic gets .push-type.liveactivity). Default: the scenario's bundle-id.",
            valueName: "bundle-id"))
    var topic: String?

    @Option(help: "Replace the file's seed (jitter, chance, random and pick).")
    var seed: Int?

    @Flag(name: .customLong("no-end"), help: "On Ctrl-C, leave the activities running instead of ending them.")
    var noEnd = false

    @Flag(name: .customLong("no-view"), help: "Print one line per push even on a terminal.")
    var noView = false

    @Flag(
        help:
            "Serve the live dashboard page from the embedded mock (see --dashboard-listen) and print its URL: each activity as the Lock Screen and the Dynamic Island would draw it. It stays up after the story ends, until Ctrl-C."
    )
    var dashboard = false

    @Option(
        name: .customLong("dashboard-listen"),
        help: ArgumentHelp("Where --dashboard serves the page.", valueName: "host:port"))
    var dashboardListen = "127.0.0.1:2199"

    mutating func validate() throws {
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be more than 0") }
        guard connections >= 1 else { throw ValidationError("--connections must be at least 1") }
        if dashboard, apnsURL != nil || credentials.keyFile != nil {
            throw ValidationError(
                "--dashboard draws the embedded mock's device; drop the credentials and --apns-url, or run `liveline mock-apns --dashboard HOST:PORT` and play against it with --apns-url"
            )
        }
    }

    mutating func run() async throws {
        guard var scenario = ScenarioFiles.load(file, app: try app.load()) else { throw ExitCode(1) }
        if !only.isEmpty {
            let unknown = only.filter { name in !scenario.activities.contains { $0.name == name } }
            guard unknown.isEmpty else {
                Terminal.error(
                    "error: \(file) has no activity named \(unknown.joined(separator: ", ")); it has \(scenario.activities.map(\.name).joined(separator: ", "))"
                )
                throw ExitCode(1)
            }
            scenario.activities = scenario.activities.filter { only.contains($0.name) }
        }
        let key: SigningKey?
        do {
            key = try credentials.signingKey()
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(1)
        }
        if dashboard, key != nil {
            Terminal.error(
                "error: --dashboard draws the embedded mock's device, and credentials (here from the environment) play to APNs; unset them, or run `liveline mock-apns --dashboard HOST:PORT` and play against it with --apns-url"
            )
            throw ExitCode(1)
        }
        let bundleID =
            topic.map(LiveActivityTopic.bundleID(ofTopic:)) ?? scenario.bundleID

        // Where to play: APNs (or a server given by URL), or the embedded mock.
        let destination: Destination
        do {
            if key != nil || apnsURL != nil {
                destination = try remoteDestination(scenario: scenario, key: key)
            } else {
                let address =
                    dashboard ? try MockAPNsCommand.address(dashboardListen, option: "--dashboard-listen") : nil
                destination = try await Destination.embeddedMock(scenario: scenario, dashboard: address)
            }
        } catch let error as PlayError {
            Terminal.error("error: \(error.message)")
            throw ExitCode(1)
        }

        let client = try APNsClient(
            configuration: .init(endpoint: destination.endpoint, connections: connections, signingKey: destination.key),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let clock = WallClock()
        let start = clock.now() + 1000
        let run = ScenarioRun(
            scenario: scenario, start: start, seed: seed.map { UInt64(bitPattern: Int64($0)) }, speed: speed)
        let monitor = PlayMonitor(scenario: scenario, start: start, speed: speed, activities: run.activities)
        let view = !noView && Terminal.stdoutIsTTY
        let mock = destination.mock
        var resolver: (@Sendable (Int, String) async -> String?)?
        if let mock {
            resolver = { _, startToken in await Destination.updateToken(of: startToken, in: mock) }
        }
        let session = LiveSession(
            run: run, client: client, delivery: .init(bundleID: bundleID, updateTokenResolver: resolver),
            targets: Dictionary(uniqueKeysWithValues: destination.targets.enumerated().map { ($0.offset, $0.element) }),
            clock: clock, configuration: .init(endsActivitiesOnStop: !noEnd, reportsWakes: true),
            observer: { event in
                monitor.record(event)
                if let mock { Self.annotate(event, in: mock) }
                switch event {
                case .refused(let push, let problem, let engine):
                    Terminal.error(
                        "warning: \(engine.program.name): a \(push.event.rawValue) push was not sent: \(problem)")
                case .delivery(let delivery) where !view:
                    let outcome = mock.flatMap { destination.deviceOutcome(delivery, in: $0) }
                    if let line = monitor.line(for: delivery, deviceOutcome: outcome) { Terminal.out(line) }
                default:
                    break
                }
            }
        )

        let dashboardURL = mock?.dashboardURL
        if let dashboardURL { Terminal.error("dashboard: \(dashboardURL)") }
        Terminal.error(
            destination.banner
                + " · \(scenario.name) at \(speed == 1 ? "real time" : "\(StateValue.double(speed).templateText)×")"
                + (view ? "" : " · Ctrl-C ends the activities"))
        let screen =
            view
            ? LiveScreen(
                monitor: monitor, device: { index in mock.flatMap { destination.deviceSnapshot(index, in: $0) } },
                title: "\(scenario.name) · \(destination.banner)" + (dashboardURL.map { " · dashboard \($0)" } ?? ""))
            : nil
        let drawing = screen.map { screen in Task { await screen.run() } }

        // Ctrl-C asks the session to stop: it ends the activities properly, drains, and returns.
        // A second Ctrl-C leaves at once, without waiting for the drain.
        signal(SIGINT, SIG_IGN)
        let sigint = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        let interrupts = Atomic<Int>(0)
        sigint.setEventHandler {
            if interrupts.add(1, ordering: .relaxed).newValue > 1 {
                if view { Terminal.write("\u{1B}[?25h") }
                Terminal.error("interrupted again: leaving without waiting for APNs")
                Foundation.exit(PlayStatus.interrupted.rawValue)
            }
            if !view { Terminal.error("ending the activities (Ctrl-C again to leave at once)") }
            session.requestStop(.interrupted)
        }
        sigint.resume()

        let report = await session.run()
        // With the dashboard, the page stays up after the story (its ended state is the point)
        // until Ctrl-C; the same signal source then answers it.
        let keepsServing = dashboardURL != nil && interrupts.load(ordering: .relaxed) == 0
        if !keepsServing { sigint.cancel() }
        if let screen, let drawing {
            await screen.stop()
            await drawing.value
        }
        await client.shutdown()
        if keepsServing, let dashboardURL {
            if screen == nil { Terminal.error(report.summary) }
            Terminal.error("the story has ended; the dashboard stays up at \(dashboardURL) until Ctrl-C")
            await Self.untilInterrupted(sigint)
        }
        await mock?.shutdown()

        if screen == nil, !keepsServing { Terminal.error(report.summary) }
        if let advice = report.configurationError {
            Terminal.error("error: APNs refused the setup: \(advice)")
            if advice.contains("certificate not trusted"), apnsURL != nil, caFile == nil {
                Terminal.error(
                    "hint: pass the server's certificate with --ca-file FILE.pem (liveline mock-apns writes it with --write-ca)"
                )
            }
        }
        for stopped in report.stoppedActivities { Terminal.error("\(stopped.name): \(stopped.reason)") }
        if !report.abandoned.isEmpty {
            Terminal.error(
                "warning: \(report.abandoned.count) \(report.abandoned.count == 1 ? "push was" : "pushes were") still pending when the run stopped"
            )
        }
        if report.status != .success { throw ExitCode(report.status.rawValue) }
    }

    /// Returns at Ctrl-C (through `sigint`, the run's own source) or SIGTERM.
    private static func untilInterrupted(_ sigint: any DispatchSourceSignal) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        sigint.setEventHandler { continuation.yield() }
        signal(SIGTERM, SIG_IGN)
        let sigterm = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
        sigterm.setEventHandler { continuation.yield() }
        sigterm.resume()
        for await _ in stream { break }
        sigint.cancel()
        sigterm.cancel()
    }

    /// Tells the embedded mock's dashboard why each answered push was sent.
    private static func annotate(_ event: SessionEvent, in mock: MockAPNsServer) {
        guard case .delivery(let delivery) = event else { return }
        switch delivery {
        case .delivered(_, let push, let response, _, _), .rejected(_, let push, let response):
            if let id = response.apnsID ?? response.requestID {
                mock.annotatePush(id: id, reason: push.reason.description)
            }
        default:
            break
        }
    }

    /// The destination for credentials or a URL: every activity needs a token or channel.
    private func remoteDestination(scenario: Scenario, key: SigningKey?) throws -> Destination {
        let endpoint: APNsEndpoint
        if let apnsURL {
            do { endpoint = try APNsEndpoint(url: apnsURL, trustedCertificates: caFile) } catch {
                throw PlayError(message: "\(error)")
            }
        } else {
            endpoint = env == .production ? .production : .sandbox
        }
        let updateTokens = try Self.assign(tokens, to: scenario, flag: "--token")
        let starts = try Self.assign(startTokens, to: scenario, flag: "--start-token")
        let channelIDs = try Self.assign(channels, to: scenario, flag: "--channel")
        var targets: [PushTarget] = []
        for activity in scenario.activities {
            let startedByPush = activity.startBeat != nil
            let start = starts[activity.name]
            if startedByPush, start == nil {
                throw PlayError(
                    message:
                        "'\(activity.name)' starts by push: pass its push-to-start token with --start-token \(scenario.activities.count > 1 ? "\(activity.name)=HEX" : "HEX")"
                )
            }
            if let channel = channelIDs[activity.name] {
                targets.append(PushTarget(startToken: start, updates: .channel(channel)))
            } else if let token = updateTokens[activity.name] {
                targets.append(PushTarget(startToken: start, updates: .token(token)))
            } else if startedByPush {
                targets.append(PushTarget(startToken: start, updates: .reportedToken))
            } else {
                throw PlayError(
                    message:
                        "'\(activity.name)' needs a target: its update token with --token \(scenario.activities.count > 1 ? "\(activity.name)=HEX" : "HEX") (from the activity's pushTokenUpdates), or --channel"
                )
            }
        }
        return Destination(endpoint: endpoint, key: key, targets: targets, mock: nil, banner: "APNs \(endpoint)")
    }

    /// `VALUE` (one activity) or `NAME=VALUE` options, by activity name.
    static func assign(_ values: [String], to scenario: Scenario, flag: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for value in values {
            if let equals = value.firstIndex(of: "="),
                scenario.activities.contains(where: { $0.name == String(value[..<equals]) })
            {
                result[String(value[..<equals])] = String(value[value.index(after: equals)...])
            } else if scenario.activities.count == 1, let only = scenario.activities.first {
                result[only.name] = value
            } else {
                throw PlayError(
                    message:
                        "\(flag) \(value): with several activities, write NAME=VALUE (names: \(scenario.activities.map(\.name).joined(separator: ", ")))"
                )
            }
        }
        return result
    }
}

/// A play setup problem, said for the user.
struct PlayError: Error {
    var message: String
}
