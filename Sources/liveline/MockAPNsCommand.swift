import ArgumentParser
import Foundation
import Liveline
import LivelineAppTypes
import LivelineMockAPNs

/// `liveline mock-apns`: runs the APNs look-alike until SIGINT or SIGTERM.
struct MockAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-apns",
        abstract: "Run an APNs look-alike that also shows what the device would do.",
        discussion: """
            Speaks HTTP/2 like api.push.apple.com: validates every header, the JWT and the \
            payload with APNs's status codes and reasons, and simulates the device behind each \
            token (lifecycle, newest-timestamp-wins, the priority-10 budget, decode checks). A 200 \
            from APNs does not mean the phone showed anything; the inspection API says what it \
            would have shown.

            Exactly one of --auth-key or --accept-any-token is required. Without \
            --h2c or --tls-cert it serves TLS with a self-signed certificate written \
            to --write-ca. Durations are written 250ms, 20s, 1m30s. Shutdown windows \
            count from the start (or from POST /faults).

            With --app, the device decodes every push with the app's own types, read \
            from its Swift source (ActivityAttributes and ContentState), instead of \
            shapes inferred from first content-states: would-not-render then means what \
            the phone would do, an unknown attributes-type on a start included.

            Examples:
              liveline mock-apns --accept-any-token --h2c --inspect 127.0.0.1:2198
              liveline mock-apns --auth-key AuthKey_ABC123DEFG.p8 \\
                --key-id ABC123DEFG --team-id DEF123GHIJ \\
                --fail 500:InternalServerError:0.01 --latency 5ms-40ms
            """
    )

    @Option(name: .long, help: ArgumentHelp("Address to listen on.", valueName: "host:port"))
    var listen = "127.0.0.1:2197"

    @Flag(
        name: .customLong("h2c"),
        help: "Serve HTTP/2 without TLS (prior knowledge: curl --http2-prior-knowledge). Fastest on loopback.")
    var h2c = false

    @OptionGroup var tls: MockTLSOptions

    @Option(
        name: .customLong("auth-key"),
        help: ArgumentHelp(
            "A .p8 signing key (or its public key PEM) whose ES256 JWTs are accepted. Repeat for several keys; pair each with --key-id and --team-id in the same order.",
            valueName: "file.p8"))
    var authKeys: [String] = []

    @Option(
        name: .customLong("key-id"),
        help: ArgumentHelp("The 10-character Key ID of the matching --auth-key (the JWT's kid).", valueName: "id"))
    var keyIDs: [String] = []

    @Option(
        name: .customLong("team-id"),
        help: ArgumentHelp("The Team ID of the matching --auth-key (the JWT's iss).", valueName: "id"))
    var teamIDs: [String] = []

    @Flag(
        name: .customLong("accept-any-token"),
        help: "Turn JWT checks off (any or no authorization header passes), for quick demos.")
    var acceptAnyToken = false

    @Option(
        name: .customLong("max-streams"),
        help: ArgumentHelp(
            "SETTINGS_MAX_CONCURRENT_STREAMS once a request carried a valid token; it is 1 before, like APNs.",
            valueName: "n"))
    var maxStreams = 1000

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Client connections open at once; one more is closed as it arrives, with a warning.", valueName: "n"))
    var maxConnections = 10_000

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Priority-10 pushes per activity per hour before the device throttles. Default: 12, or 48 with --frequent-updates.",
            valueName: "n"))
    var budget: Int?

    @Flag(
        name: .customLong("frequent-updates"),
        help: "Simulate an app with NSSupportsLiveActivitiesFrequentUpdates (a larger budget).")
    var frequentUpdates = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Subscribe the activity behind an update token to a broadcast channel (the channel is created). Repeatable.",
            valueName: "channel=token"))
    var subscribe: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Answer this error for a fraction of valid pushes, e.g. 500:InternalServerError:0.01 or 410:Unregistered:0.001. Repeatable; rates add up.",
            valueName: "status:reason:rate"))
    var fail: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Delay every answer: fixed (20ms), uniform (10ms-50ms) or exponential with a mean (exp:20ms).",
            valueName: "latency"))
    var latency: String?

    @Option(
        name: .customLong("too-many-requests-after"),
        help: ArgumentHelp(
            "Answer 429 TooManyRequests to a token's pushes beyond n within a sliding minute.", valueName: "n"))
    var tooManyRequestsAfter: Int?

    @Option(
        name: .customLong("goaway-every"),
        help: ArgumentHelp(
            "Send GOAWAY {\"reason\":\"Shutdown\"} and close a connection after every n requests on it.", valueName: "n"
        ))
    var goAwayEvery: Int?

    @Option(
        name: .customLong("reset-every"),
        help: ArgumentHelp(
            "Reset the TCP connection (RST, no answer) on every nth request of a connection.", valueName: "n"))
    var resetEvery: Int?

    @Option(
        name: .customLong("shutdown-window"),
        help: ArgumentHelp(
            "Answer 503 Shutdown and GOAWAY during a window: after+for, optionally /every to repeat, e.g. 1m+30s or 1m+30s/10m. Repeatable.",
            valueName: "after+for[/every]"))
    var shutdownWindows: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A scenario file whose first content-states the device checks every push against (field types, Date fields). Repeatable.",
            valueName: "file.yaml"))
    var scenario: [String] = []

    /// `--app`: pushes are checked against the app's own types instead of a scenario's shapes.
    @OptionGroup var app: AppTypesOption

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Answer 410 Unregistered to every push to this token, as APNs does once an activity's token is no longer valid. Repeatable.",
            valueName: "token"))
    var unregister: [String] = []

    @Option(name: .long, help: ArgumentHelp("Seed for the random fault draws (error rates, latency).", valueName: "n"))
    var seed: UInt64?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read a fault plan from YAML (see the README). --fail adds to its error rates; the other fault flags replace its entries.",
            valueName: "file.yaml"))
    var faults: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve the JSON inspection API (GET /activities, /activities/{token}/pushes, /stats; POST /faults, /reset) over HTTP/1.1 here.",
            valueName: "host:port"))
    var inspect: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve the live dashboard page here: every activity drawn as the Lock Screen and the Dynamic Island would draw it, with the push timeline. Loopback unless told otherwise; with --scenario it uses the file's names and presentation blocks.",
            valueName: "host:port"))
    var dashboard: String?

    @Option(name: .long, help: ArgumentHelp("Event-loop threads. Default: one per core.", valueName: "n"))
    var threads: Int?

    @Option(name: .long, help: ArgumentHelp("Pushes kept in each token's history.", valueName: "n"))
    var history = 32

    @Flag(
        name: .customLong("keep-payloads"),
        help:
            "Keep the body of every push in the history. By default a rendered push's body is dropped once a newer one arrives; the last one and those not rendered are kept."
    )
    var keepPayloads = false

    @Flag(
        name: .customLong("lean-history"),
        help:
            "Keep no rendered body in the history, not even the newest, as liveline load's embedded mock does; bodies refused for their content or not rendered are still kept."
    )
    var leanHistory = false

    @Flag(
        name: .customLong("print-pushes"),
        help:
            "Print one line per push: token, status, what the device did and why; each new provider-token warning once."
    )
    var printPushes = false

    func validate() throws {
        if acceptAnyToken == !authKeys.isEmpty {
            throw ValidationError("give --auth-key with --key-id and --team-id, or --accept-any-token")
        }
        if authKeys.count != keyIDs.count || authKeys.count != teamIDs.count {
            throw ValidationError(
                "each --auth-key needs its own --key-id and --team-id (got \(authKeys.count) keys, \(keyIDs.count) key ids, \(teamIDs.count) team ids)"
            )
        }
        try tls.validate(withoutTLS: h2c, flag: "--h2c")
        if maxStreams < 1 { throw ValidationError("--max-streams must be at least 1") }
        if maxConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
    }

    func run() async throws {
        // A server: a reader that goes away (… | head) stops its printing, not its serving.
        Terminal.whenOutputCloses {}
        var configuration = MockAPNsConfiguration()
        configuration.logger.logLevel = .warning
        (configuration.host, configuration.port) = try Self.address(listen, option: "--listen")
        configuration.transport = h2c ? .h2c : .tls(tls.identity(defaultFile: "liveline-mock-apns.pem"))
        if acceptAnyToken {
            configuration.authentication = .acceptAnyToken
        } else {
            var keys: [ProviderKey] = []
            for (index, path) in authKeys.enumerated() {
                guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw ValidationError("cannot read --auth-key \(path)")
                }
                do {
                    keys.append(try ProviderKey(keyID: keyIDs[index], teamID: teamIDs[index], pem: pem))
                } catch {
                    throw ValidationError("--auth-key \(path): \(error)")
                }
            }
            configuration.authentication = .keys(keys)
        }
        configuration.maxConcurrentStreams = maxStreams
        configuration.maxConnections = maxConnections
        configuration.budget = .init(perHour: budget, frequentUpdates: frequentUpdates)
        configuration.faults = try faultPlan()
        if !scenario.isEmpty { configuration.contentStateShapes = try shapes(from: scenario) }
        let appTypes = try app.load()
        if let appTypes { configuration.appDecoding = AppPayloadDecoding(types: appTypes) }
        for entry in subscribe {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--subscribe takes channel=token, got \(entry)")
            }
            configuration.subscriptions[parts[0], default: []].append(parts[1])
        }
        if let inspect {
            let address = try Self.address(inspect, option: "--inspect")
            if !Self.isLoopback(address.host) {
                Terminal.error(
                    "warning: the inspection API has no authentication and can reset the mock and change its faults; --inspect \(inspect) lets other machines do that"
                )
            }
            configuration.inspection = address
        }
        if let dashboard {
            let (host, port) = try Self.address(dashboard, option: "--dashboard")
            if !Self.isLoopback(host) {
                Terminal.error(
                    "warning: the dashboard has no authentication; --dashboard \(dashboard) shows every activity and its pushes to other machines"
                )
            }
            var settings = DashboardConfiguration(host: host, port: port)
            for file in scenario {
                guard let loaded = ScenarioFiles.load(file) else { throw ExitCode(1) }
                settings.describe(loaded)
            }
            configuration.dashboard = settings
        }
        if let threads { configuration.eventLoopThreads = max(1, threads) }
        configuration.historyPerToken = max(1, history)
        configuration.keepsLastPayload = !leanHistory
        configuration.keepsEveryPayload = keepPayloads

        let server: MockAPNsServer
        do {
            server = try await MockAPNsServer.start(configuration)
        } catch {
            // Not a usage error: the command line is fine, the machine is not ready for it.
            Terminal.error("liveline mock-apns: \(error)")
            throw ExitCode(1)
        }
        printBanner(server, configuration: configuration)
        if let appTypes {
            let names = appTypes.activityAttributes.map(\.name).joined(separator: ", ")
            say(
                "decoding every push as the app does: \(names) (from \(CountText.of(appTypes.files.count, "Swift file")))"
            )
        }
        let printer = printPushes ? Task { await Self.follow(server.events()) } : nil
        let signal = await SignalWaiter.next([SIGINT, SIGTERM])
        say("\nreceived \(signal == SIGINT ? "SIGINT" : "SIGTERM"): sending GOAWAY and closing")
        await server.shutdown()
        printer?.cancel()
    }

    private func faultPlan() throws -> FaultPlan {
        var plan = FaultPlan.none
        if let faults {
            guard let text = try? String(contentsOfFile: faults, encoding: .utf8) else {
                throw ValidationError("cannot read --faults \(faults)")
            }
            do {
                plan = try FaultPlan(yaml: text)
            } catch {
                throw ValidationError("--faults \(faults): \(error)")
            }
        }
        for entry in fail {
            guard let rate = FaultPlan.ErrorRate(entry) else {
                throw ValidationError("--fail takes status:reason:rate like 500:InternalServerError:0.01, got \(entry)")
            }
            plan.errors.append(rate)
        }
        if let latency {
            guard let value = Latency(latency) else {
                throw ValidationError("--latency takes 20ms, 10ms-50ms or exp:20ms")
            }
            plan.latency = value
        }
        if let tooManyRequestsAfter { plan.tooManyRequestsAfter = tooManyRequestsAfter }
        if let goAwayEvery { plan.goAwayEvery = goAwayEvery }
        if let resetEvery { plan.resetEvery = resetEvery }
        for text in shutdownWindows {
            guard let window = ShutdownWindow(text) else {
                throw ValidationError("--shutdown-window takes after+for or after+for/every, like 1m+30s/10m")
            }
            plan.shutdownWindows.append(window)
        }
        plan.unregisteredTokens.formUnion(unregister.map { $0.lowercased() })
        if let seed { plan.seed = seed }
        return plan
    }

    /// Expected content-state shapes from scenario files: by attributes type (push-started
    /// activities say theirs), and as the fallback when the files have only one shape.
    private func shapes(from files: [String]) throws -> ContentStateShapes {
        var byType: [String: StateObject] = [:]
        for file in files {
            guard let scenario = ScenarioFiles.load(file) else { throw ExitCode(1) }
            for activity in scenario.activities where byType[activity.attributesType] == nil {
                byType[activity.attributesType] = activity.firstState()
            }
        }
        return ContentStateShapes(byAttributesType: byType, fallback: byType.count == 1 ? byType.values.first : nil)
    }

    private func printBanner(_ server: MockAPNsServer, configuration: MockAPNsConfiguration) {
        let transport = server.usesTLS ? "TLS" : "h2c"
        say(
            "liveline mock APNs on \(server.baseURL) (\(transport), \(acceptAnyToken ? "any token accepted" : CountText.of(authKeys.count, "signing key")))"
        )
        if let path = server.certificatePath {
            say("self-signed certificate: \(path) (clients trust it with --cacert / as a CA)")
        }
        if let port = server.inspectionPort, let inspection = configuration.inspection {
            let host = inspection.host.contains(":") ? "[\(inspection.host)]" : inspection.host
            say("inspection API: http://\(host):\(port)/activities  /stats  /activities/<token>/pushes")
        }
        if let url = server.dashboardURL {
            say("dashboard: \(url)")
        }
        let tlsFlag: String
        if !server.usesTLS {
            tlsFlag = "--http2-prior-knowledge"
        } else if let path = server.certificatePath {
            tlsFlag = "--http2 --cacert \(path)"
        } else {
            tlsFlag = "--http2 --cacert <your CA>"
        }
        let auth = acceptAnyToken ? "" : " -H \"authorization: bearer $JWT\""
        // `$JWT`: a token signed with the first key, made the way the README shows.
        var token = ""
        if !acceptAnyToken, let key = authKeys.first, let keyID = keyIDs.first, let teamID = teamIDs.first {
            token = "  JWT=$(liveline token --key \(key) --key-id \(keyID) --team-id \(teamID))\n"
        }
        let timestamp = Int(Date().timeIntervalSince1970)
        say(
            """
            try it:
            \(token)  curl -i \(tlsFlag)\(auth) \\
                -H 'apns-topic: com.example.app.push-type.liveactivity' -H 'apns-push-type: liveactivity' -H 'apns-priority: 10' \\
                --data '{"aps":{"timestamp":\(timestamp),"event":"update","content-state":{"status":"on-the-way"}}}' \\
                \(server.baseURL)/3/device/00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0
            press Ctrl-C to stop
            """)
    }

    /// Prints a line per push. A warning prints under the first push that carries it: a client's
    /// token brings the same warnings on every push until it is refreshed.
    private static func follow(_ records: AsyncStream<AnsweredPush>) async {
        var warned: Set<String> = []
        for await record in records {
            let target = record.token.map { String($0.prefix(16)) } ?? "channel \(record.channelID ?? "?")"
            var line = "\(record.kind.rawValue) \(target) p\(record.priority) → \(record.status)"
            if let reason = record.reason { line += " \(reason)" }
            for delivery in record.deliveries {
                line +=
                    " | \(delivery.activityID.prefix(24)): \(delivery.outcome.rawValue), \(delivery.lifecycle.rawValue)"
                if !delivery.reasons.isEmpty { line += " (\(delivery.reasons.joined(separator: "; ")))" }
            }
            say(line)
            if warned.count > 1024 { warned.removeAll() }
            for warning in record.warnings where warned.insert(warning).inserted {
                say("  warning: \(warning)")
            }
        }
    }

    /// Splits `host:port` or `[v6]:port`.
    /// Whether `host` is this machine only: 127.0.0.0/8, ::1 or localhost.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare.lowercased() == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    static func address(_ text: String, option: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else {
            throw ValidationError("\(option) takes host:port, got \(text)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("\(option) takes host:port, got \(text)") }
        return (host, port)
    }
}

/// Writes a line to standard output at once (unbuffered), so logs piped to files follow along.
func say(_ line: String) {
    Terminal.out(line)
}

/// Waits for the first of some signals, with handlers that do nothing else.
enum SignalWaiter {
    static func next(_ signals: [Int32]) async -> Int32 {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        var received = SIGTERM
        for await number in stream {
            received = number
            break
        }
        for source in sources { source.cancel() }
        return received
    }
}
