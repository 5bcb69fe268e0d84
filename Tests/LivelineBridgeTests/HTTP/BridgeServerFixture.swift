import Foundation
import HTTPTypes
import LivelineTestSupport
import Synchronization
import Testing
@testable import LivelineBridge

/// A real bridge HTTP server on 127.0.0.1 (a free port), over a fresh store (SQLite unless
/// asked for PostgreSQL), with the
/// example configuration's three sources (Scenarios/bridge.example.yaml) and a body limit of
/// 2 KiB; torn down after `body`.
struct RunningBridge: Sendable {
    let server: BridgeHTTPServer
    let port: Int
    let store: SQLStore
    let metrics: BridgeMetrics
    let configuration: BridgeConfiguration
    let wakes: WakeCounter
    let logs: CapturedLog

    var base: String { "http://127.0.0.1:\(port)" }

    /// The registry key whose hash the example configuration lists.
    static let apiKey = "demo-key"
    static let bodyLimit = 2048

    func source(_ name: String) throws -> SourceConfiguration {
        try #require(configuration.source(named: name))
    }

    /// Signs `body` as `source`'s sender would, now.
    func signed(
        _ source: String, _ body: String, headers: HTTPFields = HTTPFields(), id: String? = nil
    ) throws -> HTTPFields {
        let url = "\(base)/v1/webhooks/\(source)"
        return try WebhookSigner(scheme: try self.source(source).scheme).sign(
            body: Array(body.utf8), url: url, now: BridgeClock.unixSeconds(BridgeClock.now()), headers: headers, id: id)
    }

    /// Posts a webhook with this repository's own client.
    func post(_ source: String, _ body: String, headers: HTTPFields) async throws -> WebhookSender.Answer {
        try await WebhookSender().send(to: "\(base)/v1/webhooks/\(source)", headers: headers, body: Array(body.utf8))
    }

    /// A request to the registry API with this repository's own client.
    func registry(
        _ method: HTTPRequest.Method, _ key: String, body: String = "", apiKey: String? = RunningBridge.apiKey
    ) async throws -> WebhookSender.Answer {
        var headers = HTTPFields()
        if let apiKey { headers[.authorization] = "Bearer \(apiKey)" }
        if !body.isEmpty { headers[.contentType] = "application/json" }
        return try await WebhookSender().send(
            to: "\(base)/v1/activities/\(key)", method: method, headers: headers, body: Array(body.utf8))
    }

    /// `configure` may change the example configuration before the server starts.
    static func with(
        store kind: StoreKind = .sqlite, configure: (inout BridgeConfiguration) throws -> Void = { _ in },
        _ body: (RunningBridge) async throws -> Void
    ) async throws {
        try await StoreFixture.withStore(kind) { store in
            var configuration = try loadExample()
            configuration.bodyLimit = bodyLimit
            try configure(&configuration)
            let metrics = BridgeMetrics()
            let wakes = WakeCounter()
            let logs = CapturedLog()
            let server = BridgeHTTPServer(
                configuration: configuration, store: store, inbox: InboxWriter(store: store), metrics: metrics,
                logger: logs.logger(label: "liveline.tests.bridge"),
                listen: ListenAddress(host: "127.0.0.1", port: 0),
                wake: { wakes.increment() },
                contentState: { record in Array("{\"status\":\"\(record.lifecycle.rawValue)\",\"eta\":1800}".utf8) })
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                do {
                    let port = try await server.listeningPort()
                    try await body(
                        RunningBridge(
                            server: server, port: port, store: store, metrics: metrics, configuration: configuration,
                            wakes: wakes, logs: logs))
                } catch {
                    group.cancelAll()
                    throw error
                }
                group.cancelAll()
            }
        }
    }
}

/// A thread-safe count, for the wake hook.
final class WakeCounter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// A request made with curl, a client nobody here wrote.
struct Curl {
    struct Answer {
        var status: Int
        /// The body without its final newline.
        var body: String
        /// Response headers, names lower-cased.
        var headers: [String: String]
    }

    /// Runs curl with `arguments` (after the URL), the body (if any) from a temporary file.
    static func run(_ url: String, _ arguments: [String] = [], body: [UInt8]? = nil) async throws -> Answer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let headerFile = directory.appendingPathComponent("headers").path
        var full = ["-sS", "-o", "-", "-D", headerFile, "-w", "\n%{http_code}", "-H", "Expect:"]
        if let body {
            let file = directory.appendingPathComponent("body")
            try Data(body).write(to: file)
            full += ["--data-binary", "@\(file.path)"]
        }
        full += arguments + [url]

        let curl = try await Subprocess.run(["curl"] + full)
        let text = curl.stdout
        #expect(curl.status == 0, "curl \(full.joined(separator: " ")) exited \(curl.status)")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in ((try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? "").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = lines.dropLast().joined(separator: "\n")
        if body.hasSuffix("\n") { body.removeLast() }
        return Answer(status: status, body: body, headers: headers)
    }

    /// `-H name: value` for each field.
    static func headers(_ fields: HTTPFields) -> [String] {
        fields.flatMap { ["-H", "\($0.name.rawName): \($0.value)"] }
    }
}

/// The JSON object of an answer's body, for looking at its fields.
func jsonObject(_ text: String) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(value as? [String: Any], "not a JSON object: \(text)")
}
