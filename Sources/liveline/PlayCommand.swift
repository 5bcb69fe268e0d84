import ArgumentParser
import Dispatch
import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTerminal
import NIOPosix
import Synchronization

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
            activities with an immediate dismissal (unless --no-end), then exits;
            so does a closed output (… | head), quietly, with status 0.

            Targets: --token for activities the app started, --start-token for
            push-to-start, --channel for broadcasts; NAME=VALUE picks the activity
            in a file with several; --topic is the scenario's bundle-id unless
            given. Tokens, the key's Key ID and Team ID, the topic
            and the key itself are checked before anything is sent, and APNs is
            connected to first: a run that cannot reach it stops within 15 s.

            Environment: LIVELINE_APNS_KEY_FILE (the .p8 file) or LIVELINE_APNS_KEY
            (its PEM text), LIVELINE_APNS_KEY_ID, LIVELINE_APNS_TEAM_ID,
            LIVELINE_APNS_TOPIC and LIVELINE_APNS_ENVIRONMENT stand in for --key,
            --key-id, --team-id, --topic and --env; a flag wins over its variable.

            Exit status: 0 the story played to its end; 1 the file has errors (with
            --app: or would not decode into the app's types), or a target or
            credential is missing or malformed; 2 APNs refused the setup (topic,
            key, environment, certificate); 3 APNs stopped some activities (410) or
            pushes failed; 4 APNs could not be reached (every connection attempt
            failed for 15 s); 130 interrupted; 64 usage error.
            """
    )

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

    @OptionGroup var apps: APNsAppOptions

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

    @Option(
        help: ArgumentHelp(
            "The phones the story plays to: ios, android (a Live Update through FCM, for activities with an android: block) or both. With android only, the engine's APNs pushes go to the embedded mock APNs.",
            valueName: "ios|android|both"))
    var platform: PlanPlatforms = .ios

    @Option(
        name: .customLong("fcm-service-account"),
        help: ArgumentHelp(
            "The Firebase project's service-account key file, for FCM. Without it, Live Updates go to an embedded mock FCM.",
            valueName: "file"))
    var fcmServiceAccount: String?

    @Option(
        name: .customLong("fcm-token"),
        help: ArgumentHelp(
            "The app instance's FCM registration token (fid:ID for an installation id); NAME=TOKEN picks the activity.",
            valueName: "[name=]token"))
    var fcmTokens: [String] = []

    @Option(
        name: .customLong("fcm-url"),
        help: ArgumentHelp("FCM's address, for a mock (liveline mock-fcm).", valueName: "url"))
    var fcmURL: String?

    @Option(
        name: .customLong("fcm-ca-file"),
        help: ArgumentHelp(
            "PEM certificates to trust for --fcm-url and the service account's token_uri (liveline mock-fcm's self-signed one).",
            valueName: "file"))
    var fcmCAFile: String?

    mutating func validate() throws {
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be more than 0") }
        if platform == .android, apnsURL != nil || credentials.keyFile != nil || !tokens.isEmpty {
            throw ValidationError(
                "--platform android sends no APNs pushes; drop the APNs credentials, --apns-url and --token, or play --platform both"
            )
        }
        guard connections >= 1 else { throw ValidationError("--connections must be at least 1") }
        if dashboard, apnsURL != nil || credentials.keyFile != nil {
            throw ValidationError(
                "--dashboard draws the embedded mock's device; drop the credentials and --apns-url, or run `liveline mock-apns --dashboard HOST:PORT` and play against it with --apns-url"
            )
        }
    }

    /// The steps of a play, each its own method below.
    mutating func run() async throws {
        let scenario = try loadScenario()
        let (key, bundleID) = try checkSetup(scenario)
        let android = try await prepareAndroid(scenario)
        let destination = try await chooseDestination(scenario, key: platform == .android ? nil : key)
        let client = try APNsClient(
            configuration: .init(endpoint: destination.endpoint, connections: connections, signingKey: destination.key),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        try await connect(client, destination)
        let play = PlayRun(
            scenario: scenario, destination: destination, client: client, android: android, bundleID: bundleID,
            speed: speed,
            seed: seed.map { UInt64(bitPattern: Int64($0)) }, endsActivities: !noEnd,
            view: !noView && Terminal.stdoutIsTTY)
        let report = await play.run()
        if Terminal.outputClosed { return }
        try conclude(report)
    }

    /// Where the Live Updates go with `--platform android|both` (``AndroidPlay``); nil for iOS only.
    private func prepareAndroid(_ scenario: Scenario) async throws -> AndroidPlay? {
        guard platform != .ios else {
            if fcmServiceAccount != nil || !fcmTokens.isEmpty || fcmURL != nil || fcmCAFile != nil {
                Terminal.error(
                    "error: --fcm-service-account, --fcm-token, --fcm-url and --fcm-ca-file need --platform android or both"
                )
                throw ExitCode(1)
            }
            return nil
        }
        guard scenario.activities.contains(where: { $0.android != nil }) else {
            Terminal.error(
                "error: --platform \(platform.rawValue): \(scenario.file) has no android: block; add one to an activity to play its Live Update (Scenarios/README.md, \"Android\")"
            )
            throw ExitCode(1)
        }
        do {
            return try await AndroidPlay.prepare(
                scenario: scenario, serviceAccount: fcmServiceAccount, url: fcmURL, caFile: fcmCAFile, tokens: fcmTokens
            )
        } catch {
            Terminal.error("error: \(error.message)")
            throw ExitCode(1)
        }
    }

    /// The file, checked (against the app's types with `--app`), with only the activities
    /// `--activity` names.
    private func loadScenario() throws -> Scenario {
        guard var scenario = ScenarioFiles.load(file, app: try app.load()) else { throw ExitCode(1) }
        guard !only.isEmpty else { return scenario }
        let unknown = only.filter { name in !scenario.activities.contains { $0.name == name } }
        guard unknown.isEmpty else {
            Terminal.error(
                "error: \(file) has no activity named \(unknown.joined(separator: ", ")); it has \(scenario.activities.map(\.name).joined(separator: ", "))"
            )
            throw ExitCode(1)
        }
        scenario.activities = scenario.activities.filter { only.contains($0.name) }
        return scenario
    }

    /// What can be checked before anything is sent: the key (its file, its curve, its IDs), the
    /// topic, and the shape of every token. Returns the key, if any, and the bundle id.
    private func checkSetup(_ scenario: Scenario) throws -> (SigningKey?, String) {
        let key: SigningKey?
        let bundleID: String?
        do {
            key = try credentials.signingKey()
            bundleID = try apps.bundleID()
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
        for (flag, values) in [("--token", tokens), ("--start-token", startTokens)] {
            for value in values {
                let token = value.split(separator: "=", maxSplits: 1).last.map(String.init) ?? value
                if let problem = APNsIdentifiers.deviceTokenProblem(token) {
                    Terminal.error("error: \(flag) \(value): \(problem)")
                    throw ExitCode(1)
                }
            }
        }
        return (key, bundleID ?? scenario.bundleID)
    }

    /// Where to play: the server `--apns-url` names, APNs with credentials, or the embedded mock
    /// (``APNsChoice``); with a target per activity.
    private func chooseDestination(_ scenario: Scenario, key: SigningKey?) async throws -> Destination {
        do {
            let environment = try apps.environment()
            let choice = try APNsChoice.decide(
                url: apnsURL, trusting: caFile, hasCredentials: key != nil, apple: environment.endpoint,
                mock: .withoutCredentials)
            guard let endpoint = choice.endpoint else {
                let address =
                    dashboard ? try MockAPNsCommand.address(dashboardListen, option: "--dashboard-listen") : nil
                return try await Destination.embeddedMock(scenario: scenario, dashboard: address)
            }
            return Destination(
                endpoint: endpoint, key: key,
                targets: try PlayTargets.assign(tokens: tokens, startTokens: startTokens, channels: channels, scenario),
                mock: nil, banner: "APNs \(endpoint)")
        } catch let error as PlayError {
            Terminal.error("error: \(error.message)")
            throw ExitCode(1)
        } catch let error as APNsChoiceError {
            Terminal.error("error: \(error)")
            throw ExitCode(1)
        } catch let error as CredentialsError {
            Terminal.error("error: \(error)")
            throw ExitCode(1)
        }
    }

    /// Connects before the story starts: a run that cannot reach APNs ends here (4), within
    /// 15 s at any speed, rather than push by push; one refused for its setup (a certificate)
    /// ends as APNs refusing the setup does (2).
    private func connect(_ client: APNsClient, _ destination: Destination) async throws {
        do {
            try await client.connect()
        } catch {
            await client.shutdown()
            await destination.mock?.shutdown()
            if let setup = error.setupError {
                Terminal.error("error: APNs refused the setup: \(setup)")
                hintAboutCertificates(setup.description)
                throw ExitCode(PlayStatus.setupRefused.rawValue)
            }
            let advice =
                apnsURL == nil
                ? "check the network (a proxy or a firewall in the way?)"
                : "is the server running, and is --apns-url right?"
            Terminal.error("error: \(error); nothing was sent: \(advice)")
            throw ExitCode(PlayStatus.unreachable.rawValue)
        }
    }

    /// The summary's errors and the exit status.
    private func conclude(_ report: SessionReport) throws {
        if let advice = report.configurationError {
            Terminal.error("error: APNs refused the setup: \(advice)")
            hintAboutCertificates(advice)
        }
        for stopped in report.stoppedActivities { Terminal.error("\(stopped.name): \(stopped.reason)") }
        if !report.abandoned.isEmpty {
            Terminal.error(
                "warning: \(report.abandoned.count) \(report.abandoned.count == 1 ? "push was" : "pushes were") still pending when the run stopped"
            )
        }
        if report.status != .success { throw ExitCode(report.status.rawValue) }
    }

    private func hintAboutCertificates(_ problem: String) {
        if problem.contains("certificate not trusted"), apnsURL != nil, caFile == nil {
            Terminal.error(
                "hint: pass the server's certificate with --ca-file FILE.pem (liveline mock-apns writes it with --write-ca)"
            )
        }
    }
}

/// A play setup problem, said for the user.
struct PlayError: Error {
    var message: String
}
