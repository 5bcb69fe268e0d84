import ArgumentParser
import Foundation
import Liveline
import LivelineAPNs
import LivelineFCM
import LivelineLoad
import LivelineMockAPNs
import LivelineMockFCM

/// `liveline load FILE[:WEIGHT]…`: many concurrent activities against a target, measured.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Play many concurrent activities against APNs, a mock or nothing, and measure.",
        discussion: """
            Each activity is one copy of a scenario's activity, with its own seed (jitter
            differs per activity; --seed replays a run exactly) and its own device token.
            FILE:WEIGHT mixes scenarios: a.yaml:3 b.yaml:1 gives three of a to one of b.

            Each activity is one its app started: a device token, no push-to-start token,
            and no app to report a successor's token. A story with renew: is therefore not
            renewed: its renewal's pushes are counted "not renewed" (not lost, not errors)
            and the story carries on in its one activity.

            Targets:
              mock     (default) an APNs mock started in this process on 127.0.0.1,
                       h2c (--tls for TLS); reports what its devices would not render
              URL      https://host:port (APNs, or a mock elsewhere; --ca-file to trust
                       its certificate) or http://host:port (h2c); --key/--key-id/
                       --team-id sign provider tokens
              discard  the engines and the encoder alone, on --threads threads

            Platforms: --android-share 0.3 plays 30% of the activities on Android
            (spread evenly over the copies), each a Live Update through FCM by
            Android's rules (HIGH only for what the user sees, a collapse key per
            activity, the app's update rate), the rest on iOS through APNs by its
            own (the budget). A share rather than one platform per run, because an
            audience is rarely half and half: 0 is iOS alone, 1 Android alone.
            Android's messages go to a mock FCM started in this process (--fcm-target
            mock, default) or to --fcm-target URL with --fcm-service-account. The
            report, the progress line and the JSON give each platform's counts,
            errors and latency; a threshold takes ios: or android: before its
            metric (android:p99<500ms).

            Clocks: --clock virtual (default) plays as fast as possible; against a
            network target pushes are released as fast as --max-in-flight allows and
            latency counts from each release. --clock real --speed N plays in wall time
            (stories N times faster) and latency counts from each push's due time, so a
            late send is counted as latency (no coordinated omission).

            Examples:
              liveline load Scenarios/football.yaml --activities 2000 --report load.html
              liveline load Scenarios/football.yaml --activities 100000 --target discard
              liveline load Scenarios/football.yaml:3 Scenarios/delivery.yaml \\
                  --activities 10000 --ramp 30s --clock real --speed 60 \\
                  --threshold 'p99<250ms' --threshold 'errors<0.1%'
              liveline load Scenarios/football.yaml --activities 50000 --broadcast \\
                  --channels 10
              liveline load Scenarios/football.yaml --activities 20000 \\
                  --android-share 0.5 --threshold 'android:p99<500ms'
              liveline load … --shard 2/4 --json part2.json  (then liveline report merge)

            Thresholds: p50 p90 p99 p99.9 pN min mean max (250ms, 1.5s, 800us),
            errors lost rejected superseded would-not-render exhausted (a count or a
            percentage: errors<0.1%, lost=0), rate (rate>1000/s); operators < <= > >= =;
            ios: or android: first for one platform.

            A network target is connected to before the first push: one that cannot be
            reached within 15 s ends the run (exit 2). A closed output (… | head) does
            not: the reports are still written and the exit status is the run's.

            Exit status: 0 success; 1 a scenario file has errors; 2 the run failed
            (the target could not be reached or refused the setup, or pushes were
            lost); 64 usage error; 99 a threshold failed.
            """
    )

    enum ClockOption: String, ExpressibleByArgument, CaseIterable { case virtual, real }

    @Argument(help: ArgumentHelp("Scenario files, each optionally with :WEIGHT.", valueName: "file[:weight]"))
    var files: [String]

    @Option(help: ArgumentHelp("How many activities in the whole test.", valueName: "n"))
    var activities = 1000

    @Option(help: ArgumentHelp("Spread the activity starts evenly over this time (e.g. 30s).", valueName: "duration"))
    var ramp: String?

    @Option(help: ArgumentHelp("Start activities at this rate (e.g. 500/s) instead of all at once.", valueName: "n/s"))
    var rate: String?

    @Option(help: "Replace the files' seeds (jitter, chance, random, tokens).")
    var seed: Int?

    @Option(help: ArgumentHelp("Play only part I of N of the test (e.g. 2/4), for several machines.", valueName: "i/n"))
    var shard: String?

    @Option(
        help: ArgumentHelp(
            "mock, discard, or an APNs URL (https://host:port or http://host:port for h2c).", valueName: "target"))
    var target = "mock"

    @Flag(help: "With --target mock (and --fcm-target mock): serve TLS (self-signed) instead of h2c.")
    var tls = false

    @Option(
        name: .customLong("android-share"),
        help: ArgumentHelp(
            "The share of activities on Android (0 to 1, or 30%), each a Live Update through FCM; the rest on iOS. Default: 0, iOS alone.",
            valueName: "share"))
    var androidShare: String?

    @Option(
        name: .customLong("fcm-target"),
        help: ArgumentHelp(
            "Where Android's messages go: mock (a mock FCM in this process) or an FCM URL (liveline mock-fcm elsewhere: https://host:port).",
            valueName: "target"))
    var fcmTarget = "mock"

    @Option(
        name: .customLong("fcm-service-account"),
        help: ArgumentHelp(
            "The service-account key file for --fcm-target URL (liveline mock-fcm writes one).", valueName: "file"))
    var fcmServiceAccount: String?

    @Option(
        name: .customLong("fcm-ca-file"),
        help: ArgumentHelp(
            "PEM certificates to trust for --fcm-target URL and its token_uri (liveline mock-fcm's self-signed one).",
            valueName: "file"))
    var fcmCAFile: String?

    @OptionGroup var credentials: CredentialOptions

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("PEM certificates to trust for --target URL (a mock's self-signed one).", valueName: "file"))
    var caFile: String?

    @Option(help: "virtual (as fast as possible) or real (wall time × --speed).")
    var clock: ClockOption = .virtual

    @Option(help: "With --clock real: play stories this many times faster.")
    var speed: Double = 1

    @Option(
        name: .customLong("max-in-flight"),
        help: ArgumentHelp("The most pushes sent and not yet answered.", valueName: "n"))
    var maxInFlight = 2000

    @Option(help: ArgumentHelp("HTTP/2 connections to the target.", valueName: "n"))
    var connections = 2

    @Option(
        help: ArgumentHelp(
            "Engine threads for --target discard --clock virtual. Default: the number of cores.", valueName: "n"))
    var threads: Int?

    @Option(
        name: .customLong("mock-threads"),
        help: ArgumentHelp("Event-loop threads of the embedded mock.", valueName: "n"))
    var mockThreads = 1

    @Option(
        name: .customLong("mock-history"),
        help: ArgumentHelp(
            "Pushes the embedded mock keeps per token (its history, without the bodies it rendered); the report needs only its counters, and each kept push costs about 100 bytes per activity.",
            valueName: "n"))
    var mockHistory = 1

    @Option(
        help: ArgumentHelp(
            "Device tokens, one hex token per line, one per activity (default: generated).", valueName: "file"))
    var tokens: String?

    @Flag(help: "Broadcast mode: activities follow channels; one push per channel updates them all.")
    var broadcast = false

    @Option(
        help: ArgumentHelp("With --broadcast: how many channels (default: one per 1,000 activities).", valueName: "n"))
    var channels: Int?

    @Option(help: ArgumentHelp("Stop sending after this much wall time (e.g. 5m).", valueName: "duration"))
    var duration: String?

    @Option(
        help: ArgumentHelp("Write the result as JSON (stable; merge with liveline report merge).", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Write a self-contained HTML report with charts.", valueName: "file.html"))
    var report: String?

    @Option(
        name: .customLong("threshold"),
        help: ArgumentHelp(
            "Fail (exit 99) unless this holds, e.g. 'p99<250ms', 'errors<0.1%', 'rate>1000/s'. Repeatable.",
            valueName: "expr"))
    var thresholds: [String] = []

    @Flag(help: "No progress line, even on a terminal.")
    var quiet = false

    mutating func validate() throws {
        if ramp != nil, rate != nil {
            throw ValidationError("--ramp and --rate cannot be combined: pick one arrival shape")
        }
        if let ramp, DurationText.parse(ramp) == nil {
            throw ValidationError("--ramp \(ramp): expected \(DurationText.expected)")
        }
        if let duration, DurationText.parse(duration).map({ $0 > 0 }) != true {
            throw ValidationError("--duration \(duration): expected \(DurationText.expected)")
        }
        if clock == .virtual, speed != 1 {
            throw ValidationError("--speed applies to --clock real; the virtual clock always runs as fast as possible")
        }
        if channels != nil, !broadcast { throw ValidationError("--channels applies to --broadcast") }
        let platforms: PlatformMix
        do {
            platforms = try androidShare.map { text throws(LoadError) in try PlatformMix(parsing: text) } ?? .iosOnly
        } catch {
            throw ValidationError(error.cliMessage)
        }
        if !platforms.hasAndroid, fcmTarget != "mock" || fcmServiceAccount != nil || fcmCAFile != nil {
            throw ValidationError(
                "--fcm-target, --fcm-service-account and --fcm-ca-file apply to Android's activities: give --android-share"
            )
        }
        if fcmTarget == "mock", fcmServiceAccount != nil || fcmCAFile != nil {
            throw ValidationError(
                "--fcm-service-account and --fcm-ca-file apply to --fcm-target URL; the mock makes its own")
        }
        if fcmTarget != "mock", fcmServiceAccount == nil {
            throw ValidationError(
                "--fcm-target \(fcmTarget) needs --fcm-service-account (the Firebase project's key file, or the one liveline mock-fcm writes)"
            )
        }
        if tls, target != "mock", !(platforms.hasAndroid && fcmTarget == "mock") {
            throw ValidationError("--tls applies to --target mock; for a URL, https:// means TLS")
        }
        if caFile != nil, target == "mock" || target == "discard" {
            throw ValidationError("--ca-file applies to --target URL")
        }
        for threshold in thresholds {
            do { _ = try Threshold(parsing: threshold) } catch { throw ValidationError(error.cliMessage) }
        }
    }

    mutating func run() async throws {
        // The run is over when its summary prints: a reader that went away (… | head) does not
        // keep the reports from being written, and the exit status stays the run's.
        Terminal.whenOutputCloses {}
        do {
            try await play()
        } catch let error as LoadError {
            Terminal.error("error: \(error.cliMessage)")
            throw ExitCode(error.exitStatus.rawValue)
        }
    }

    /// The steps of a load test, each its own method below.
    private func play() async throws {
        let loaded = try loadScenarios()
        var configuration = try loadConfiguration(loaded)
        let thresholds = try self.thresholds.map { text throws(LoadError) in try Threshold(parsing: text) }
        var mocks = EmbeddedMocks()
        do {
            mocks.apns = try await chooseTarget(&configuration, seed: seedValue ?? loaded[0].scenario.seed)
            mocks.fcm = try await chooseFCM(&configuration, scenarios: loaded.map(\.scenario))
        } catch {
            await mocks.stop()
            throw error
        }
        var result = try await execute(configuration, mocks: mocks)
        result.thresholds = thresholds.map { $0.check(result) }
        try Self.write(result, json: json, report: report)
        throw ExitCode(LoadExitStatus.of(result).rawValue)
    }

    private var seedValue: UInt64? { seed.map { UInt64(bitPattern: Int64($0)) } }

    /// Every file with its weight; each file's problems are printed, and any stops the test.
    private func loadScenarios() throws -> [(scenario: Scenario, weight: Int)] {
        var loaded: [(scenario: Scenario, weight: Int)] = []
        var failed = false
        for file in files {
            let argument = try ScenarioMix.FileArgument(parsing: file)
            if let scenario = ScenarioFiles.load(argument.path) {
                loaded.append((scenario, argument.weight))
            } else {
                failed = true
            }
        }
        if failed { throw ExitCode(LoadExitStatus.scenarioErrors.rawValue) }
        return loaded
    }

    /// The workload and the run's settings, from the options (the target comes next).
    private func loadConfiguration(_ loaded: [(scenario: Scenario, weight: Int)]) throws -> LoadConfiguration {
        let realSpeed: Double? = clock == .real ? speed : nil
        let mix = try ScenarioMix(loaded, seed: seedValue, speed: realSpeed ?? 1)
        var configuration = LoadConfiguration(mix: mix, activities: activities)
        configuration.seed = seedValue
        let baseSeed = seedValue ?? loaded[0].scenario.seed
        if let ramp, let millis = DurationText.parse(ramp) { configuration.arrivals = .ramp(millis) }
        if let rate { configuration.arrivals = .rate(perSecond: try Arrivals.parseRate(rate)) }
        if let shard { configuration.shard = try Shard(parsing: shard) }
        configuration.clock = realSpeed.map { .real(speed: $0) } ?? .virtual
        configuration.maxInFlight = maxInFlight
        configuration.connections = connections
        configuration.threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
        configuration.timeLimit = duration.flatMap(DurationText.parse).map(Duration.milliseconds)
        configuration.tokens =
            try tokens.map { path throws(LoadError) in try TokenSource.read(file: path) } ?? .generated(seed: baseSeed)
        if let androidShare {
            configuration.platforms = try PlatformMix(parsing: androidShare)
            try configuration.validateAndroidBlocks()
        }
        if let tokens { try configuration.tokens.validate(copies: activities, file: tokens) }
        if broadcast {
            configuration.broadcast = try BroadcastPlan(channels: channels ?? max(1, (activities + 999) / 1000))
        }
        return configuration
    }

    /// `--target`: nothing (`discard`), the embedded mock (returned, to be read and shut down
    /// after the run), or a server by URL (``APNsChoice``).
    private func chooseTarget(
        _ configuration: inout LoadConfiguration, seed baseSeed: UInt64
    ) async throws
        -> MockAPNsServer?
    {
        guard target != "discard" else {
            configuration.target = .discard
            return nil
        }
        let choice: APNsChoice
        do {
            choice = try APNsChoice.decide(
                url: target == "mock" ? nil : target, trusting: caFile, hasCredentials: false, apple: .sandbox,
                mock: target == "mock" ? .always : .never)
        } catch .badURL(let error) {
            throw LoadError.targetUnavailable(
                target: "--target \(target)", cause: "\(error.problem); or use mock or discard")
        }
        if let endpoint = choice.endpoint {
            configuration.target = .endpoint(endpoint, signingKey: try signingKey(), name: endpoint.description)
            return nil
        }
        let started: (server: MockAPNsServer, endpoint: APNsEndpoint)
        do {
            started = try await EmbeddedMock.start(for: "load", tls: tls, threads: mockThreads) { mockConfiguration in
                mockConfiguration.authentication = .acceptAnyToken
                mockConfiguration.historyPerToken = max(1, mockHistory)
                mockConfiguration.keepsLastPayload = false
                if let plan = configuration.broadcast {
                    mockConfiguration.subscriptions = plan.subscriptions(
                        seed: baseSeed, tokens: configuration.tokens,
                        copies: (0..<activities).filter { configuration.shard.contains(copy: plan.channel(ofCopy: $0)) }
                    )
                }
            }
        } catch {
            throw LoadError.targetUnavailable(target: "the embedded mock APNs", cause: error.cause)
        }
        configuration.target = .endpoint(started.endpoint, signingKey: try signingKey(), name: "mock")
        return started.server
    }

    /// With Android in the run: where its messages go, the mock FCM in this process (returned,
    /// to be read and stopped after the run) or a server by URL with a service account.
    private func chooseFCM(
        _ configuration: inout LoadConfiguration, scenarios: [Scenario]
    ) async throws -> MockFCMServer? {
        guard configuration.platforms.hasAndroid, case .endpoint = configuration.target else { return nil }
        guard fcmTarget == "mock" else {
            let account: ServiceAccount
            do {
                account = try ServiceAccount(contentsOf: fcmServiceAccount ?? "")
            } catch {
                throw LoadError.invalidSetting(.fcmTarget, value: fcmTarget, problem: "--fcm-service-account: \(error)")
            }
            configuration.fcm = .init(
                client: .init(account: account, url: fcmTarget, trustedCertificates: fcmCAFile),
                project: account.projectID, name: fcmTarget)
            return nil
        }
        let started: EmbeddedMockFCM.Started
        do {
            started = try await EmbeddedMockFCM.start(
                for: "load", scenarios: scenarios, project: "liveline-load", tls: tls, threads: mockThreads
            ) { mockConfiguration in
                mockConfiguration.historyLimit = max(1, mockHistory)
            }
        } catch {
            throw LoadError.targetUnavailable(target: "the embedded mock FCM", cause: error.cause)
        }
        configuration.fcm = .init(client: started.clientConfiguration(), project: "liveline-load", name: "mock")
        return started.server
    }

    /// Runs the test with the progress line on a terminal; the mocks' device and phone counts
    /// join the result, and the mocks are stopped whatever happens.
    private func execute(_ configuration: LoadConfiguration, mocks: EmbeddedMocks) async throws -> LoadResult {
        let runner: LoadRunner
        do {
            runner = try LoadRunner(configuration: configuration)
        } catch {
            await mocks.stop()
            throw error
        }
        let ticker = quiet || !Terminal.stderrIsTTY ? nil : Task { await Self.drawProgress(runner) }
        var result: LoadResult
        do {
            result = try await runner.run()
        } catch {
            ticker?.cancel()
            await mocks.stop()
            throw error
        }
        ticker?.cancel()
        _ = await ticker?.value
        if let mock = mocks.apns {
            result.device = mock.stats().device
        }
        if let mock = mocks.fcm {
            result.platforms?.android.phones = Dictionary(
                uniqueKeysWithValues: mock.stats().phones.map { ($0.key.rawValue, $0.value) })
        }
        await mocks.stop()
        return result
    }

    private func signingKey() throws(LoadError) -> SigningKey? {
        do {
            return try credentials.signingKey()
        } catch {
            throw .invalidSetting(.credentials, value: nil, problem: "\(error)")
        }
    }

    /// Prints the summary and writes the JSON and HTML files asked for.
    static func write(_ result: LoadResult, json: String?, report: String?) throws(LoadError) {
        Terminal.out(TextReport(color: Terminal.colorOnStdout).render(result))
        if let json {
            try JSONReport.write(result, to: json)
            Terminal.error("wrote \(json)")
        }
        if let report {
            do {
                try HTMLReport().render(result).write(toFile: report, atomically: true, encoding: .utf8)
            } catch {
                throw .cannotWrite(path: report, cause: error.localizedDescription)
            }
            Terminal.error("wrote \(report)")
        }
    }

    /// Redraws the progress line on standard error a few times a second until cancelled.
    static func drawProgress(_ runner: LoadRunner) async {
        var line = ProgressLine()
        let width = Terminal.columns
        while !Task.isCancelled {
            let text = line.render(runner.progress(), width: width)
            Terminal.writeError("\r" + text + "\u{1B}[K")
            try? await Task.sleep(for: .milliseconds(250))
        }
        Terminal.writeError("\r\u{1B}[K")
    }
}

/// The mocks a load test started in this process, stopped together after the run.
private struct EmbeddedMocks {
    var apns: MockAPNsServer?
    var fcm: MockFCMServer?

    func stop() async {
        await apns?.shutdown()
        await fcm?.stop()
    }
}

extension LoadError {
    /// The message with settings named as this CLI's flags: `--activities 0: must be 1 or more`.
    var cliMessage: String {
        message { setting in
            switch setting {
            case .scenarios: "scenario file"
            case .histogram: "histogram"
            case .credentials: "credentials"
            default: "--" + setting.rawValue
            }
        }
    }
}
