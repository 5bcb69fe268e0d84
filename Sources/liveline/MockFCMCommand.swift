import ArgumentParser
import Foundation
import LivelineMockFCM

/// `liveline mock-fcm`: runs the FCM look-alike until SIGINT or SIGTERM.
struct MockFCMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-fcm",
        abstract: "Run an FCM look-alike that also shows what the Android phone would do.",
        discussion: """
            Serves FCM's HTTP v1 API (POST /v1/projects/{project}/messages:send) and an OAuth \
            2.0 token endpoint on one port, HTTP/2 or HTTP/1.1: FCM's request checks and error \
            bodies, faults on demand, and behind every registration token or installation id a \
            phone that shows (or does not) the app's Live Update.

            Like fcm.googleapis.com it serves TLS (ALPN h2 or http/1.1), with a self-signed \
            certificate written to --write-ca unless --tls-cert is given; --plain serves \
            without TLS (HTTP/2 with prior knowledge, or HTTP/1.1).

            At start it writes a service-account key file whose token_uri is the mock's, for \
            Liveline (--fcm-service-account, with --fcm-ca-file to trust the certificate) or the \
            Firebase Admin SDKs (with the FCM address pointed at the mock, and \
            REQUESTS_CA_BUNDLE at the certificate). The inspection API is under /mock/ on the \
            same port (docs/fcm.md, "The mock FCM").

            Examples:
              liveline mock-fcm --listen 127.0.0.1:2201 --project liveline-demo
              curl -s --cacert /tmp/liveline-mock-fcm.pem https://127.0.0.1:2201/mock/messages
              liveline mock-fcm --plain &
              curl -s -X POST http://127.0.0.1:2201/mock/faults -d '{"code":"UNAVAILABLE","count":2}'
            """
    )

    @Option(name: .long, help: ArgumentHelp("Address to listen on.", valueName: "host:port"))
    var listen = "127.0.0.1:2201"

    @Flag(
        name: [.customLong("plain"), .customLong("h2c")],
        help: "Serve without TLS: HTTP/2 with prior knowledge (curl --http2-prior-knowledge) or HTTP/1.1.")
    var plain = false

    @OptionGroup var tls: MockTLSOptions

    @Option(help: ArgumentHelp("Event-loop threads.", valueName: "n"))
    var threads = 1

    @Option(help: "The Firebase project id of the service account the mock makes.")
    var project = "liveline-demo"

    @Option(
        name: .customLong("write-service-account"),
        help: ArgumentHelp(
            "Where to write the service-account key file. Default: liveline-mock-fcm-service-account.json in the temporary directory.",
            valueName: "path"))
    var writeServiceAccount: String?

    @Option(
        name: .customLong("channel"),
        help: ArgumentHelp(
            "A notification channel the app has created (repeatable). Default: live-updates.", valueName: "id"))
    var channels: [String] = []

    @Option(
        name: .customLong("token-lifetime"),
        help: ArgumentHelp("Seconds an access token lives.", valueName: "seconds"))
    var tokenLifetime: Int64 = 3600

    func validate() throws {
        try tls.validate(withoutTLS: plain, flag: "--plain")
        guard threads >= 1 else { throw ValidationError("--threads must be 1 or more") }
    }

    mutating func run() async throws {
        var configuration = MockFCMConfiguration()
        (configuration.host, configuration.port) = try MockAPNsCommand.address(listen, option: "--listen")
        configuration.eventLoopThreads = threads
        configuration.transport = plain ? .plain : .tls(tls.identity(defaultFile: "liveline-mock-fcm.pem"))
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be at least 1 second") }
        configuration.tokenLifetime = tokenLifetime
        if !channels.isEmpty {
            configuration.app.channels = Dictionary(channels.map { ($0, .default) }, uniquingKeysWith: { a, _ in a })
        }
        // The key first (it takes a moment), so the key file is written as soon as the mock
        // listens: a script that waits for the mock to answer finds the file there.
        let key: MockServiceAccountKey
        do {
            key = try MockServiceAccountKey()
        } catch {
            Terminal.error("liveline mock-fcm: cannot make the service account's key: \(error)")
            throw ExitCode(1)
        }
        let server: MockFCMServer
        do {
            server = try await MockFCMServer.start(configuration)
        } catch {
            Terminal.error("liveline mock-fcm: \(error)")
            throw ExitCode(1)
        }
        let path =
            writeServiceAccount
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("liveline-mock-fcm-service-account.json")
            .path
        do {
            try Data(try server.makeServiceAccount(project: project, key: key)).write(
                to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            await server.stop()
            Terminal.error("liveline mock-fcm: cannot write the service account to \(path): \(error)")
            throw ExitCode(1)
        }
        say(
            "mock FCM listening on \(server.baseURL) (\(server.usesTLS ? "TLS, ALPN h2 or http/1.1" : "HTTP/2 with prior knowledge, or HTTP/1.1"))"
        )
        say("  send:            POST \(server.baseURL)/v1/projects/\(project)/messages:send")
        say("  token endpoint:  \(server.tokenURI)")
        say("  service account: \(path)")
        if let certificate = server.certificatePath {
            say("  certificate:     \(certificate) (curl --cacert, liveline play --fcm-ca-file)")
        }
        let trust = server.certificatePath.map { "--cacert \($0) " } ?? ""
        say(
            "  inspection:      curl -s \(trust)\(server.baseURL)/mock/stats  (also /mock/messages, /mock/phones/token/{token})"
        )
        let signal = await SignalWaiter.next([SIGINT, SIGTERM])
        say("\nreceived \(signal == SIGINT ? "SIGINT" : "SIGTERM"): closing")
        await server.stop()
    }
}
