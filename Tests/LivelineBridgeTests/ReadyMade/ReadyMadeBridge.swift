import Foundation
import HTTPTypes
import Liveline
import Logging
import Testing
@testable import LivelineBridge

/// One of the ready-made sources (Scenarios/sources/*.yaml) served for real: the bridge's HTTP
/// server on a free loopback port over a fresh SQLite store, the app's registration through the
/// registry API, webhooks signed as their senders sign them, and the harness's dispatcher and
/// sender pushing to a real mock APNs in virtual time.
struct ReadyMadeBridge {
    let harness: BridgeHarness
    let port: Int

    /// The secrets the ready-made configurations read with `env:`.
    static let environment = [
        "DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo",
        "UBER_SIGNING_KEY": "uber-demo",
        "SHOPIFY_CLIENT_SECRET": "shpss_demo",
        "STRIPE_WEBHOOK_SECRET": "whsec_demo",
        "SQUARE_SIGNATURE_KEY": "sq-demo",
        "SPORTRADAR_API_KEY": "demo",
    ]

    static let directory = scenariosDirectory + "/sources"

    /// Serves `Scenarios/<file>` on a store of `kind` for `body`.
    static func with(
        _ file: String, store kind: StoreKind = .sqlite, _ body: (ReadyMadeBridge) async throws -> Void
    ) async throws {
        let path = "\(scenariosDirectory)/\(file)"
        let configuration = try BridgeConfigurationLoader(environment: environment.merging(exampleEnvironment) { $1 })
            .load(file: path)
        try await StoreFixture.withStore(kind) { store in
            let harness = try await BridgeHarness(store: store, configuration: configuration)
            let server = BridgeHTTPServer(
                configuration: configuration, store: store, inbox: InboxWriter(store: store), metrics: BridgeMetrics(),
                logger: Logger(label: "liveline.tests.ready-made", factory: { _ in SwiftLogNoOpLogHandler() }),
                listen: ListenAddress(host: "127.0.0.1", port: 0), wake: {},
                contentState: { harness.dispatcher.contentState(of: $0) }, journal: harness.dispatcher.journal)
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await server.run() }
                    do {
                        try await body(ReadyMadeBridge(harness: harness, port: try await server.listeningPort()))
                    } catch {
                        group.cancelAll()
                        throw error
                    }
                    group.cancelAll()
                }
            } catch {
                await harness.stop()
                throw error
            }
            await harness.stop()
        }
    }

    /// The sample bodies in `Scenarios/sources/<folder>`, in their numbered order.
    static func samples(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(folder)")
            .filter { $0.hasSuffix(".json") }.sorted().map { "\(directory)/\(folder)/\($0)" }
    }

    /// Registers `key` as the app does: `PUT /v1/activities/{key}` with its update token.
    func register(_ key: String, token: String, source: String) async throws {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer demo-key"
        headers[.contentType] = "application/json"
        let body = #"{"update-token": "\#(token)", "source": "\#(source)"}"#
        let answer = try await WebhookSender().send(
            to: "http://127.0.0.1:\(port)/v1/activities/\(key)", method: .put, headers: headers, body: Array(body.utf8))
        #expect(answer.status == 201 || answer.status == 200, "\(answer.text)")
    }

    /// Posts a sample to `source`, with the headers of its `.headers` file (if any), signed as
    /// the sender signs; returns the bridge's answer.
    func send(_ source: String, sample path: String) async throws -> WebhookSender.Answer {
        let body = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var headers = HTTPFields()
        let headerFile = String(path.dropLast(".json".count)) + ".headers"
        if let text = try? String(contentsOfFile: headerFile, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let name = HTTPField.Name(String(parts[0])) else { continue }
                headers[name] = parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return try await send(source, body: body, headers: headers)
    }

    /// Posts `body` to `source` with `headers`, signed as the sender signs.
    func send(_ source: String, body: [UInt8], headers: HTTPFields = HTTPFields()) async throws -> WebhookSender.Answer
    {
        let configuration = try #require(harness.configuration.source(named: source))
        let url = "http://127.0.0.1:\(port)/v1/webhooks/\(source)"
        let signed = try WebhookSigner(scheme: configuration.scheme).sign(
            body: body, url: url, now: BridgeClock.unixSeconds(BridgeClock.now()), headers: headers)
        return try await WebhookSender().send(to: url, headers: signed, body: body)
    }

    /// Posts a JSON body given as text, then dispatches what is due.
    func send(_ source: String, _ json: String) async throws {
        let answer = try await send(source, body: Array(json.utf8))
        #expect((200..<300).contains(answer.status), "\(source): \(answer.status) \(answer.text)")
        try await harness.settle()
    }

    /// Sends every sample of `folder` in order, each to `source(sample file name)`, dispatching
    /// a minute of virtual time after each; returns the answers' statuses.
    @discardableResult
    func play(_ folder: String, source: (String) -> String) async throws -> [Int] {
        var statuses: [Int] = []
        for sample in try Self.samples(folder) {
            let name = URL(fileURLWithPath: sample).lastPathComponent
            let answer = try await send(source(name), sample: sample)
            #expect((200..<300).contains(answer.status), "\(name): \(answer.status) \(answer.text)")
            statuses.append(answer.status)
            harness.advance(seconds: 60)
            try await harness.settle()
        }
        return statuses
    }
}
