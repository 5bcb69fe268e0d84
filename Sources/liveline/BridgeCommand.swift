import ArgumentParser
import Crypto
import Foundation
import HTTPTypes
import Liveline
import LivelineAPNs
import LivelineBridge
import LivelineMockAPNs
import LivelineTerminal
import Logging
import NIOPosix

/// `liveline bridge`: the webhook bridge and the tools beside it.
struct BridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridge",
        abstract: "Turn webhooks and feeds (orders, matches) into Live Activity pushes.",
        subcommands: [
            BridgeServeCommand.self, BridgeSendCommand.self, BridgeDeadLettersCommand.self, BridgeRecordCommand.self,
            BridgeFollowersCommand.self,
        ]
    )
}

/// Options every bridge command reads the configuration with.
struct BridgeConfigOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The bridge configuration (see Scenarios/bridge.example.yaml).", valueName: "file.yaml"))
    var config: String

    /// Loads the file, printing located errors (exit 1) the way `validate` does. A command that
    /// only reads the store passes `readsSecrets: false`: webhook and feed secrets need not be set.
    func load(readsSecrets: Bool = true) throws -> BridgeConfiguration {
        do {
            return try BridgeConfigurationLoader(
                environment: ProcessInfo.processInfo.environment, readsSecrets: readsSecrets
            )
            .load(file: config)
        } catch {
            let formatter = DiagnosticFormatter(color: Terminal.colorOnStderr, sources: ScenarioFiles.sources(config))
            for diagnostic in error.diagnostics { Terminal.error(formatter.format(diagnostic)) }
            Terminal.error("\(config): \(CountText.of(error.errors.count, "error"))")
            throw ExitCode(1)
        }
    }

    /// Opens the configured store, or says why it cannot (exit 2).
    func openStore(_ configuration: BridgeConfiguration) async throws -> SQLStore {
        do {
            try configuration.stateDirectory?.create()
            return try await SQLStore.open(configuration.store)
        } catch {
            Terminal.error("liveline bridge: \(error)")
            throw ExitCode(2)
        }
    }
}

struct BridgeServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the bridge (webhooks in, stream sources read) until SIGTERM or Ctrl-C.",
        discussion: """
            Webhook sources post to /v1/webhooks/{source}; each stream source (kind: stream) is \
            opened by the bridge, kept open, reconnected after a cut or a silence, and its gaps \
            recovered (see Scenarios/sources/sportradar.yaml). Without APNs credentials (no `apns:` \
            in the configuration, no --apns-url) the pushes go to an embedded mock APNs, so a demo \
            needs no Apple account: GET /v1/activities/{key} shows what the device shows. Several \
            instances may share a PostgreSQL store.

            With --app (or `app:` in the configuration) the app's Swift source is read first, and \
            every source's scenario, `set:` rule and value map is checked against its types: a \
            mapping that would push a state the phone drops is an error located in the \
            configuration, naming the Swift declaration, and the bridge does not start.
            """
    )

    @OptionGroup var options: BridgeConfigOption

    @Option(
        help: ArgumentHelp(
            "Listen here instead of the configuration's `listen` (port 0: any free port, printed at start).",
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
            "trace, debug, info (each webhook and registration), notice, warning or error.", valueName: "level"))
    var logLevel = "info"

    /// `--app` (or the configuration's `app:`): refuse to serve mappings the app would not decode.
    @OptionGroup var app: AppTypesOption

    func run() async throws {
        let configuration = try options.load()
        if let types = try app.load(fallback: configuration.app) {
            let found = BridgeAppReport.check(
                configuration, against: types, color: Terminal.colorOnStderr, print: Terminal.error)
            if found.errors > 0 {
                Terminal.error(
                    "\(options.config): \(found.errors) \(found.errors == 1 ? "error" : "errors") against the app's types; not serving (the phone would drop these states)"
                )
                throw ExitCode(1)
            }
        }
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
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level \(logLevel) is not one of trace, debug, info, notice, warning, error")
        }
        var logger = Logger(label: "liveline.bridge")
        logger.logLevel = level
        let store = try await options.openStore(configuration)
        let client: APNsClient, mock: MockAPNsServer?, banner: String
        do {
            // The dashboard shows the store's audiences beside the embedded mock's devices.
            let audiences = BridgeDashboardAudiences(watch: AudienceWatch(store: store, logger: logger))
            (client, mock, banner) = try await makeClient(configuration, audiences: audiences)
        } catch {
            try? await store.close()
            throw error
        }
        if let mock { bridgeOptions.device = Self.deviceView(of: mock) }
        let service = BridgeService(
            configuration: configuration, store: store, client: client, options: bridgeOptions, logger: logger)
        let http = service.http
        let address = bridgeOptions.listen ?? configuration.listen
        let announce = Task {
            guard let port = try? await http.listeningPort() else { return }
            Terminal.out(
                """
                Liveline bridge \(bridgeOptions.instance) listening on http://\(address.host):\(port)
                  store   \(store.name)
                  pushes  \(banner)\(mock?.dashboardURL.map { "\n  dashboard \($0)" } ?? "")
                  sources \(configuration.sources.map(Self.describe).joined(separator: ", "))
                SIGTERM or Ctrl-C drains and stops.
                """)
        }
        do {
            try await service.run()
        } catch {
            announce.cancel()
            Terminal.error("liveline bridge: \(error)")
            await client.shutdown()
            await mock?.shutdown()
            try? await store.close()
            throw ExitCode(2)
        }
        // Counted in a task of its own: the stop may have cancelled this one, and a cancelled
        // task's queries fail before they reach the store.
        switch await Task(operation: { try await store.counts() }).result {
        case .success(let counts):
            Terminal.out(
                "stopped: \(CountText.of(counts.pendingEvents, "event")) and \(CountText.of(counts.outbox, "push", "pushes")) wait in the store for the next start; \(CountText.of(counts.deadLetters, "dead letter"))"
            )
        case .failure(let error):
            Terminal.error("stopped; what waits in the store could not be counted: \(error)")
        }
        await client.shutdown()
        await mock?.shutdown()
        try? await store.close()
    }

    /// What the embedded mock's device shows for an activity's update token: the outcome of the
    /// last push, the lifecycle and the content-state.
    private static func deviceView(of mock: MockAPNsServer) -> DeviceView {
        { activity in
            guard let token = activity.updateToken, let shown = mock.activity(token: token) else { return nil }
            var view = StateObject()
            if let delivery = mock.pushes(token: token).last?.deliveries.first {
                view["outcome"] = .string(delivery.outcome.rawValue)
                if !delivery.reasons.isEmpty { view["reasons"] = .array(delivery.reasons.map(StateValue.string)) }
            }
            view["lifecycle"] = .string(shown.lifecycle.rawValue)
            view["content-state"] = shown.contentState.flatMap { try? JSONParser.parse($0.jsonText) } ?? .null
            return view
        }
    }

    /// How a source reaches the bridge, for the start banner.
    private static func describe(_ source: SourceConfiguration) -> String {
        if let stream = source.stream {
            return
                "\(source.name) ← \(stream.format.rawValue) stream \(stream.url)\(stream.recover == nil ? "" : " (gaps recovered)")"
        }
        return "\(source.name) → POST /v1/webhooks/\(source.name)\(source.rateLimit.map { " (\($0))" } ?? "")"
    }

    /// The APNs client: `--apns-url`, the configured credentials, or the embedded mock (whose
    /// dashboard, with `--dashboard`, draws `audiences` too).
    private func makeClient(
        _ configuration: BridgeConfiguration, audiences: any DashboardAudienceSource
    ) async throws -> (APNsClient, MockAPNsServer?, String) {
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
        let endpoint: APNsEndpoint
        var mock: MockAPNsServer?
        var signingKey = key
        let banner: String
        if dashboard != nil, apnsURL != nil || configuration.apns != nil {
            throw ValidationError(
                "--dashboard draws the embedded mock's device, which serves only without apns: in the configuration and without --apns-url; run `liveline mock-apns --dashboard HOST:PORT` and point --apns-url at it"
            )
        }
        if let apnsURL {
            do { endpoint = try APNsEndpoint(url: apnsURL, trustedCertificates: caFile) } catch {
                throw ValidationError("\(error)")
            }
            if signingKey == nil { signingKey = try Self.throwawayKey().key }
            banner = apnsURL
        } else if let apns = configuration.apns {
            endpoint = apns.environment == .production ? .production : .sandbox
            banner = "\(apns)"
        } else {
            let (throwaway, publicKey) = try Self.throwawayKey()
            let dashboardAddress = try dashboard.map { try MockAPNsCommand.address($0, option: "--dashboard") }
            let started = try await EmbeddedMock.start(for: "bridge") { mockConfiguration in
                mockConfiguration.authentication = .keys([
                    ProviderKey(keyID: throwaway.keyID, teamID: throwaway.teamID, publicKey: publicKey)
                ])
                if let dashboardAddress {
                    var dashboard = DashboardConfiguration(host: dashboardAddress.host, port: dashboardAddress.port)
                    dashboard.audiences = audiences
                    mockConfiguration.dashboard = dashboard
                }
            }
            mock = started.server
            endpoint = started.endpoint
            signingKey = throwaway
            banner = "embedded mock APNs \(started.server.baseURL) (no apns: in the configuration)"
        }
        let client = try APNsClient(
            configuration: .init(endpoint: endpoint, signingKey: signingKey),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton
        )
        return (client, mock, banner)
    }

    private static func throwawayKey() throws -> (key: SigningKey, publicKey: P256.Signing.PublicKey) {
        let privateKey = P256.Signing.PrivateKey()
        return (
            try SigningKey(pem: privateKey.pemRepresentation, keyID: "LIVELINE01", teamID: "LIVELINETM"),
            privateKey.publicKey
        )
    }
}

struct BridgeSendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Sign a webhook body with a source's scheme and post it to the bridge, as the sender would.",
        discussion: """
            Prints the bridge's answer; exits 0 on a 2xx, 1 otherwise. With --follow it then shows \
            what the webhook did, read from GET /v1/events/{source}/{event}: stored, applied or \
            superseded (and why), the activity it maps to, the push the engine decided (priority, \
            reason, payload), APNs' answer and what the device shows; it exits 1 when the event \
            was superseded, waits for a registration, its push was refused, or no answer came within --wait.
            """
    )

    @OptionGroup var options: BridgeConfigOption

    @Argument(help: ArgumentHelp("The source (a key under `sources:`).", valueName: "source"))
    var source: String

    @Argument(help: ArgumentHelp("The JSON body to send (- for standard input).", valueName: "file.json"))
    var file: String

    @Option(
        help: ArgumentHelp("The bridge's base URL (default: the configuration's listen address).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The webhook id for schemes that carry one (default: a new one).", valueName: "id"))
    var id: String?

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp(
            "A header to send as well, like 'X-Shopify-Topic: orders/paid' (repeatable).", valueName: "name: value"))
    var headers: [String] = []

    @Flag(
        help:
            "After posting, follow the event through the bridge to APNs' answer and the device (needs a registry API key)."
    )
    var follow = false

    @Option(
        name: .customLong("api-key"),
        help: ArgumentHelp(
            "The registry API key --follow reads the event with (default: LIVELINE_API_KEY).", valueName: "key"))
    var apiKey: String?

    @Option(help: ArgumentHelp("How long --follow waits for the push to be answered.", valueName: "duration"))
    var wait = "15s"

    func run() async throws {
        let configuration = try options.load()
        guard let sourceConfiguration = configuration.source(named: source) else {
            throw ValidationError(
                "no source '\(source)' in \(options.config); it has \(configuration.sources.map(\.name).joined(separator: ", "))"
            )
        }
        let body: [UInt8]
        if file == "-" {
            body = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("cannot read \(file)")
            }
            body = Array(data)
        }
        var extra = HTTPFields()
        for header in headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let name = HTTPField.Name(parts[0].trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--header \(header) is not 'Name: value'")
            }
            extra.append(HTTPField(name: name, value: parts[1].trimmingCharacters(in: .whitespaces)))
        }
        if sourceConfiguration.isStream {
            throw ValidationError("source '\(source)' reads a stream; it takes no webhooks")
        }
        guard let waitMillis = DurationText.parse(wait), waitMillis > 0 else {
            throw ValidationError("--wait \(wait) is not \(DurationText.expected)")
        }
        let key = apiKey ?? ProcessInfo.processInfo.environment["LIVELINE_API_KEY"]
        if follow, key?.isEmpty ?? true {
            throw ValidationError(
                "--follow reads GET /v1/events/… with a registry API key: pass --api-key KEY or set LIVELINE_API_KEY (the ready-made configurations accept demo-key)"
            )
        }
        let base = url ?? "http://\(configuration.listen)"
        let target = base.hasSuffix("/") ? base + "v1/webhooks/" + source : base + "/v1/webhooks/" + source
        do {
            let headers = try WebhookSigner(scheme: sourceConfiguration.scheme).sign(
                body: body, url: target, now: BridgeClock.unixSeconds(BridgeClock.now()), headers: extra, id: id
            )
            let answer = try await WebhookSender().send(to: target, headers: headers, body: body)
            Terminal.out("\(answer.status) \(answer.text.trimmingCharacters(in: .whitespacesAndNewlines))")
            if !(200..<300).contains(answer.status) { throw ExitCode(1) }
            guard follow, let key else { return }
            guard let stored = WebhookFollower.event(inAnswer: answer.body) else {
                Terminal.error("liveline bridge send: the answer names no event to follow")
                throw ExitCode(1)
            }
            let trace = try await WebhookFollower(base: base, apiKey: key, timeout: .milliseconds(waitMillis))
                .follow(source: source, eventID: stored.event, received: stored.status)
            for line in trace.lines { Terminal.out(line) }
            switch trace.conclusion {
            case .answered where trace.apnsStatus != 200: throw ExitCode(1)
            case .answered, .held, .ignored: break
            case .superseded, .notRegistered, .timedOut: throw ExitCode(1)
            }
        } catch let error as WebhookSigningError {
            Terminal.error("liveline bridge send: \(error)")
            throw ExitCode(1)
        } catch let error as WebhookSendError {
            Terminal.error("liveline bridge send: \(error)")
            throw ExitCode(1)
        }
    }
}

struct BridgeDeadLettersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters",
        abstract: "List dead-lettered pushes, or replay them with each activity's current state.",
        discussion: """
            A replay never resends the stored payload: it sends what the activity shows now, with a \
            fresh timestamp, through a running bridge's outbox (the bridge must be running to send it).
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case list, replay
    }

    @Argument(help: "list or replay.")
    var action: Action

    @OptionGroup var options: BridgeConfigOption

    @Option(help: "At most this many.")
    var limit = 100

    func run() async throws {
        let configuration = try options.load(readsSecrets: false)
        let store = try await options.openStore(configuration)
        let failed: Bool
        do {
            failed = try await run(on: store, configuration: configuration)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        if failed { throw ExitCode(1) }
    }

    /// Lists or replays; returns whether a replay was refused.
    private func run(on store: SQLStore, configuration: BridgeConfiguration) async throws -> Bool {
        let letters = try await store.deadLetters(limit: limit)
        if letters.isEmpty { Terminal.out("no dead letters") }
        switch action {
        case .list:
            for letter in letters {
                Terminal.out(
                    "#\(letter.id)  \(letter.push.activityKey)  \(letter.push.kind.rawValue)  \(CountText.of(letter.attempts, "attempt"))  failed \(UTCTime.format(BridgeClock.wholeSecond(letter.failedAt)))\n    \(letter.lastError)"
                )
            }
        case .replay:
            let dispatcher = BridgeDispatcher(
                store: store, catalog: StoryCatalog(sources: configuration.sources, topic: configuration.apns?.topic),
                configuration: .init(instance: "dead-letters-\(ProcessInfo.processInfo.processIdentifier)")
            )
            var failed = false
            for letter in letters {
                switch try await dispatcher.replay(letter, now: BridgeClock.now()) {
                case .queued(let pushes):
                    Terminal.out(
                        "#\(letter.id) \(letter.push.activityKey): queued \(CountText.of(pushes, "push", "pushes")) with the current state"
                    )
                case .activityUnavailable:
                    failed = true
                    Terminal.out(
                        "#\(letter.id) \(letter.push.activityKey): not replayed: not registered, or a bridge is working on it (try again)"
                    )
                case .nothingToSend(let reason):
                    failed = true
                    Terminal.out("#\(letter.id) \(letter.push.activityKey): not replayed: \(reason)")
                }
            }
            return failed
        }
        return false
    }
}
