import ArgumentParser
import Foundation
import Liveline
import LivelineAPNs
import LivelineBridge
import LivelineMockAPNs
import LivelineTerminal
import Logging
import NIOPosix

/// `liveline bridge serve`: the bridge until SIGTERM or Ctrl-C.
struct BridgeServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the bridge (webhooks in, stream sources read) until SIGTERM or Ctrl-C.",
        discussion: """
            Webhook sources post to /v1/webhooks/{source}; each stream source (kind: stream) is \
            opened by the bridge, kept open, reconnected after a cut or a silence, and its gaps \
            recovered (see Scenarios/sources/sportradar.yaml). Without APNs credentials (no `apns:` \
            in the configuration, no LIVELINE_APNS_* variables, no --apns-url) the pushes go to an \
            embedded mock APNs, so a demo needs no Apple account: GET /v1/activities/{key} shows \
            what the device shows. --require-apns (the container image's default) refuses to start \
            without credentials instead, and --embedded-mock always uses the mock. Several \
            instances may share a PostgreSQL store.

            With --app (or `app:` in the configuration) the app's Swift source is read first, and \
            every source's scenario, `set:` rule and value map is checked against its types: a \
            mapping that would push a state the phone drops is an error located in the \
            configuration, naming the Swift declaration, and the bridge does not start.

            Environment (a flag wins over its variable, a variable over the file):
              LIVELINE_BRIDGE_CONFIG        the configuration, for --config
              LIVELINE_BRIDGE_LISTEN        host:port, for the file's listen
              LIVELINE_BRIDGE_LOG_LEVEL     for --log-level
              LIVELINE_BRIDGE_LOG_FORMAT    text or json, for --log-format
              LIVELINE_BRIDGE_REQUIRE_APNS  1 for --require-apns
              LIVELINE_APNS_KEY_FILE        apns: key (the .p8 file)
              LIVELINE_APNS_KEY             apns: key-env (the PEM text itself)
              LIVELINE_APNS_KEY_ID          apns: key-id
              LIVELINE_APNS_TEAM_ID         apns: team-id
              LIVELINE_APNS_TOPIC           apns: topic
              LIVELINE_APNS_ENVIRONMENT     apns: environment
              LIVELINE_STATE_DIR            where the default SQLite store goes
            Each LIVELINE_APNS_* variable replaces its key of apns:; without apns:, \
            they give the credentials on their own.

            Exit status: 0 stopped by SIGTERM or Ctrl-C, drained; 1 the configuration has errors \
            (or the app's types refuse it), or --require-apns without credentials; 2 the store \
            cannot be opened, or the bridge cannot listen; 64 usage error.
            """
    )

    /// Turns off the embedded mock when set to 1 (the container image sets it).
    static let requireAPNsVariable = "LIVELINE_BRIDGE_REQUIRE_APNS"
    static let logLevelVariable = "LIVELINE_BRIDGE_LOG_LEVEL"
    static let logFormatVariable = "LIVELINE_BRIDGE_LOG_FORMAT"

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var options: BridgeConfigOption

    @Option(
        help: ArgumentHelp(
            "Listen here instead of LIVELINE_BRIDGE_LISTEN or the configuration's `listen` (port 0: any free port, printed at start).",
            valueName: "host:port"))
    var listen: String?

    @Option(
        name: .customLong("apns-url"),
        help: ArgumentHelp(
            "Send to this server instead of APNs, e.g. a mock: https://127.0.0.1:2197.", valueName: "url"))
    var apnsURL: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("Trust these PEM certificates (a mock's self-signed one).", valueName: "file.pem"))
    var caFile: String?

    @Flag(
        name: .customLong("embedded-mock"),
        help: "Push to a mock APNs in this process, whatever credentials are set: a demo that needs no Apple account.")
    var embeddedMock = false

    @Flag(
        name: .customLong("require-apns"),
        help:
            "Refuse to start without APNs credentials or --apns-url, rather than push to the embedded mock (or LIVELINE_BRIDGE_REQUIRE_APNS=1)."
    )
    var requireAPNs = false

    @Option(
        help: ArgumentHelp(
            "Serve the live dashboard of the embedded mock here (only without APNs credentials): each activity as the Lock Screen and the Dynamic Island would draw it, and each key's followers by state and fan-out progress.",
            valueName: "host:port"))
    var dashboard: String?

    @Option(help: ArgumentHelp("This instance's name in the store's leases (default: host-pid).", valueName: "name"))
    var instance: String?

    @Option(
        help: ArgumentHelp(
            "How long a dead instance's work stays claimed before another takes it over.", valueName: "duration"))
    var lease = "30s"

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "trace, debug, info (each webhook and registration; the default), notice, warning or error; or LIVELINE_BRIDGE_LOG_LEVEL.",
            valueName: "level"))
    var logLevel: String?

    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "text (the default) or json: one JSON object a line, the start and stop included, for log collectors; or LIVELINE_BRIDGE_LOG_FORMAT.",
            valueName: "format"))
    var logFormat: LogFormat?

    /// `--app` (or the configuration's `app:`): refuse to serve mappings the app would not decode.
    @OptionGroup var app: AppTypesOption

    func validate() throws {
        if embeddedMock, apnsURL != nil {
            throw ValidationError("--embedded-mock pushes to a mock in this process; --apns-url names another server")
        }
        if embeddedMock, requireAPNs {
            throw ValidationError("--embedded-mock and --require-apns contradict each other; pick one")
        }
    }

    /// The steps of a bridge's life, each its own method below.
    func run() async throws {
        // A server: a reader that goes away (… | head) stops its printing, not its serving.
        Terminal.whenOutputCloses {}
        let configuration = try options.load()
        try checkAgainstApp(configuration)
        let bridgeOptions = try serviceOptions()
        let log = try BridgeLog(level: logLevel, format: logFormat)
        let choice = try chooseDestination(configuration)
        try await options.withStore(configuration) { store in
            let destination = try await connectAPNs(choice, configuration, store: store, log: log)
            var serviceOptions = bridgeOptions
            serviceOptions.device = destination.deviceView
            let service = BridgeService(
                configuration: configuration, store: store, clients: destination.clients, options: serviceOptions,
                logger: log.logger)
            try await serve(
                service, configuration, options: serviceOptions, store: store, destination: destination, log: log)
        }
    }

    /// With `--app` or `app:`, the configuration against the app's types: errors refuse to serve.
    private func checkAgainstApp(_ configuration: BridgeConfiguration) throws {
        guard let types = try app.load(fallback: configuration.app) else { return }
        let found = BridgeAppReport.check(
            configuration, against: types, color: Terminal.colorOnStderr, print: Terminal.error)
        if found.errors > 0 {
            Terminal.error(
                "\(options.config): \(found.errors) \(found.errors == 1 ? "error" : "errors") against the app's types; not serving (the phone would drop these states)"
            )
            throw ExitCode(1)
        }
    }

    /// `--instance`, `--lease` and `--listen` as the service takes them.
    private func serviceOptions() throws -> BridgeService.Options {
        var bridgeOptions = BridgeService.Options()
        if let instance { bridgeOptions.instance = instance }
        guard let leaseMillis = DurationText.parse(lease), leaseMillis > 0 else {
            throw ValidationError("--lease \(lease) is not \(DurationText.expected)")
        }
        bridgeOptions.lease = .milliseconds(leaseMillis)
        if let listen {
            if let address = ListenAddress(parsing: listen) {
                bridgeOptions.listen = address
            } else if listen.hasSuffix(":0"), let address = ListenAddress(parsing: listen.dropLast() + "1") {
                bridgeOptions.listen = ListenAddress(host: address.host, port: 0)
            } else {
                throw ValidationError("--listen \(listen) is not host:port")
            }
        }
        return bridgeOptions
    }

    /// Where the pushes go (``APNsChoice``): `--apns-url`, the configured or environment's
    /// credentials, or the embedded mock, unless `--require-apns` forbids it.
    private func chooseDestination(_ configuration: BridgeConfiguration) throws -> APNsChoice {
        let rule: APNsChoice.MockRule =
            embeddedMock ? .always : (try requiresAPNs() ? .never : .withoutCredentials)
        let choice: APNsChoice
        do {
            choice = try APNsChoice.decide(
                url: apnsURL, trusting: caFile, hasCredentials: configuration.apns != nil,
                apple: configuration.apns?.environment == .production ? .production : .sandbox, mock: rule)
        } catch .badURL(let error) {
            throw ValidationError("\(error)")
        } catch {
            Terminal.error(
                """
                liveline bridge: no APNs credentials, so nothing to push to (--require-apns\(requireAPNs ? "" : ", from \(Self.requireAPNsVariable)")). Give one of:
                  an apns: section in \(options.config) (key, key-id, team-id; see Scenarios/bridge.example.yaml)
                  \(Credentials.keyFileVariable) (the .p8 file) or \(Credentials.keyVariable) (its PEM text), with \(Credentials.keyIDVariable) and \(Credentials.teamIDVariable)
                  --apns-url URL (a mock APNs elsewhere)
                or, for a demo, --embedded-mock: a mock APNs in this process
                """)
            throw ExitCode(1)
        }
        if dashboard != nil, choice != .embeddedMock {
            throw ValidationError(
                "--dashboard draws the embedded mock's device, which serves only without apns: in the configuration and without --apns-url; run `liveline mock-apns --dashboard HOST:PORT` and point --apns-url at it"
            )
        }
        return choice
    }

    /// `--require-apns`, or `LIVELINE_BRIDGE_REQUIRE_APNS` (1/true/yes or 0/false/no).
    private func requiresAPNs() throws -> Bool {
        if requireAPNs { return true }
        guard let text = ProcessInfo.processInfo.environment[Self.requireAPNsVariable], !text.isEmpty else {
            return false
        }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ValidationError("\(Self.requireAPNsVariable)=\(text) is not 1 or 0")
        }
    }

    /// The client for the choice, and the embedded mock when it is the one (its dashboard, with
    /// `--dashboard`, draws the store's audiences too).
    private func connectAPNs(
        _ choice: APNsChoice, _ configuration: BridgeConfiguration, store: SQLStore, log: BridgeLog
    ) async throws -> BridgeDestination {
        let key: SigningKey?
        do {
            key = try configuration.apns.map { try $0.signingKey(environment: ProcessInfo.processInfo.environment) }
            if case .file(let path)? = configuration.apns?.key, let warning = SigningKey.exposure(ofFile: path) {
                Terminal.error("warning: \(warning)")
            }
        } catch {
            Terminal.error("liveline bridge: \(error)")
            throw ExitCode(2)
        }
        let settings = configuration.apns
        let android: BridgeDestination.AndroidDestination
        do {
            android = try await BridgeDestination.AndroidDestination.connect(configuration)
        } catch {
            Terminal.error("liveline bridge: FCM: \(error)")
            throw ExitCode(2)
        }
        let environments = settings?.environments ?? [.sandbox]
        let defaultEnvironment = settings?.environment ?? .sandbox
        switch choice {
        case .server(let endpoint):
            // Every environment's tokens go to the one server (a mock, or a proxy).
            return try BridgeDestination(
                endpoint: { _ in endpoint }, environments: environments, defaultEnvironment: defaultEnvironment,
                key: key ?? ThrowawayKey().key, settings: settings, banner: "\(endpoint)", logger: log.logger,
                fcm: android)
        case .apple(let endpoint):
            let banner = settings.map { "\($0)" } ?? "APNs \(endpoint)"
            return try BridgeDestination(
                endpoint: { $0 == .production ? .production : .sandbox }, environments: environments,
                defaultEnvironment: defaultEnvironment, key: key, settings: settings, banner: banner,
                logger: log.logger, fcm: android)
        case .embeddedMock:
            let audiences = BridgeDashboardAudiences(
                watch: AudienceWatch(store: store, logger: log.logger), mockFCM: android.mock)
            let dashboardAddress = try dashboard.map { try MockAPNsCommand.address($0, option: "--dashboard") }
            let throwaway = try ThrowawayKey()
            let started = try await EmbeddedMock.start(for: "bridge") { mockConfiguration in
                mockConfiguration.authentication = .keys([throwaway.providerKey])
                if let dashboardAddress {
                    var dashboard = DashboardConfiguration(host: dashboardAddress.host, port: dashboardAddress.port)
                    dashboard.audiences = audiences
                    mockConfiguration.dashboard = dashboard
                }
            }
            let why = embeddedMock ? "--embedded-mock" : "no apns: in the configuration"
            // A demo's tokens are the mock's: both environments reach it.
            let mockEndpoint = started.endpoint
            return try BridgeDestination(
                endpoint: { _ in mockEndpoint }, environments: APNsEnvironment.allCases,
                defaultEnvironment: defaultEnvironment, key: throwaway.key, settings: nil,
                banner: "embedded mock APNs \(started.server.baseURL) (\(why))", logger: log.logger,
                mock: started.server, fcm: android)
        }
    }

    /// Runs the service until its graceful stop, says what waits in the store, and shuts the
    /// client and the mock down.
    private func serve(
        _ service: BridgeService, _ configuration: BridgeConfiguration, options: BridgeService.Options,
        store: SQLStore, destination: BridgeDestination, log: BridgeLog
    ) async throws {
        let http = service.http
        let address = options.listen ?? configuration.listen
        let (instance, storeName) = (options.instance, store.name)
        let announce = Task {
            guard let port = try? await http.listeningPort() else { return }
            log.started(
                instance: instance, url: "http://\(address.host):\(port)", store: storeName,
                pushes: destination.banner, android: destination.androidBanner,
                dashboard: destination.mock?.dashboardURL, sources: configuration.sources)
        }
        do {
            try await service.run()
        } catch {
            announce.cancel()
            Terminal.error("liveline bridge: \(error)")
            await destination.shutdown()
            throw ExitCode(2)
        }
        // Counted in a task of its own: the stop may have cancelled this one, and a cancelled
        // task's queries fail before they reach the store.
        log.stopped(await Task(operation: { try await store.counts() }).result)
        await destination.shutdown()
    }
}
