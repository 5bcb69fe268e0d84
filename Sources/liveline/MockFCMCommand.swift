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
            2.0 token endpoint on one port, over HTTP/2 with prior knowledge or HTTP/1.1: FCM's \
            request checks and error bodies, faults on demand, and behind every registration \
            token or installation id a phone that shows (or does not) the app's Live Update.

            At start it writes a service-account key file whose token_uri is the mock's, for \
            Liveline (--fcm-service-account) or the Firebase Admin SDKs (with the FCM address \
            pointed at the mock). The inspection API is under /mock/ on the same port \
            (docs/fcm.md, "The mock FCM").

            Examples:
              liveline mock-fcm --listen 127.0.0.1:2201 --project liveline-demo
              curl -s http://127.0.0.1:2201/mock/messages
              curl -s -X POST http://127.0.0.1:2201/mock/faults -d '{"code":"UNAVAILABLE","count":2}'
            """
    )

    @Option(name: .long, help: ArgumentHelp("Address to listen on.", valueName: "host:port"))
    var listen = "127.0.0.1:2201"

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

    mutating func run() async throws {
        var configuration = MockFCMConfiguration()
        (configuration.host, configuration.port) = try MockAPNsCommand.address(listen, option: "--listen")
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be at least 1 second") }
        configuration.tokenLifetime = tokenLifetime
        if !channels.isEmpty {
            configuration.app.channels = Dictionary(channels.map { ($0, .default) }, uniquingKeysWith: { a, _ in a })
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
            try Data(try server.makeServiceAccount(project: project)).write(to: URL(fileURLWithPath: path))
        } catch {
            await server.stop()
            Terminal.error("liveline mock-fcm: cannot write the service account to \(path): \(error)")
            throw ExitCode(1)
        }
        say("mock FCM listening on \(server.baseURL) (HTTP/2 with prior knowledge, or HTTP/1.1)")
        say("  send:            POST \(server.baseURL)/v1/projects/\(project)/messages:send")
        say("  token endpoint:  \(server.tokenURI)")
        say("  service account: \(path)")
        say("  inspection:      \(server.baseURL)/mock/messages, /mock/stats, /mock/phones/token/{token}")
        let signal = await SignalWaiter.next([SIGINT, SIGTERM])
        say("\nreceived \(signal == SIGINT ? "SIGINT" : "SIGTERM"): closing")
        await server.stop()
    }
}
