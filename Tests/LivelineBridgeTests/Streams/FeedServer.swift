import Foundation
import HTTPTypes
import LivelineTestSupport
import Testing
@testable import LivelineBridge

/// `scripts/stream-feed.py`, a Sportradar-style feed written in Python's standard library (a
/// server nobody here wrote the client for), as a child process on a loopback port, with its
/// control endpoints: publish, cut, stall, refuse.
final class FeedServer: Sendable {
    static let script = scenariosDirectory + "/../scripts/stream-feed.py"
    static let match = scenariosDirectory + "/sources/sportradar/match.ndjson"

    static let pythonIsAvailable = ToolRequirement(untested: "the bridge's stream client", provider: "python3")
        .check(ToolRequirement.onPath("python3"))

    let port: Int
    let process: ChildProcess
    let arguments: [String]
    /// The certificate it serves https with, when it does.
    let certificate: String?

    private init(port: Int, process: ChildProcess, arguments: [String], certificate: String?) {
        self.port = port
        self.process = process
        self.arguments = arguments
        self.certificate = certificate
    }

    /// Starts the feed (port 0: a free one) with `options` (`--format sse`, `--refusing`,
    /// `--tls-cert FILE --tls-key FILE`…).
    static func start(port: Int = 0, state: String, options: [String] = []) async throws -> FeedServer {
        let arguments = ["--events", match, "--heartbeat", "0.2", "--api-key", "k3y", "--state", state] + options
        let process = try ChildProcess.start(["python3", script, "--port", String(port)] + arguments)
        guard let line = await process.line(startingWith: "listening "),
            let found = Int(line.dropFirst("listening ".count))
        else {
            await process.stop(kill: true)
            throw FeedServerError(message: "the feed did not start: \(process.output.joined(separator: "\n"))")
        }
        let certificate = options.firstIndex(of: "--tls-cert").flatMap {
            options.indices.contains($0 + 1) ? options[$0 + 1] : nil
        }
        return FeedServer(port: found, process: process, arguments: arguments, certificate: certificate)
    }

    /// A new server on the same port and state file, as after a restart.
    func restarted(options: [String]) async throws -> FeedServer {
        let state = arguments[arguments.firstIndex(of: "--state").map { $0 + 1 } ?? 0]
        return try await Self.start(port: port, state: state, options: options)
    }

    var base: String { "\(certificate == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// The events of the sample match, as the feed publishes them.
    static func events() throws -> [[String: Any]] {
        try String(contentsOfFile: match, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// The Sportradar event id of the `index`-th event (from 0).
    static func eventID(_ index: Int) throws -> String {
        let event = try #require((try events()[index]["payload"] as? [String: Any])?["event"] as? [String: Any])
        return "\(try #require(event["id"] as? Int))"
    }

    @discardableResult
    func control(_ path: String) async throws -> [String: Any] {
        let method: HTTPRequest.Method = path.hasPrefix("state") ? .get : .post
        let answer = try await WebhookSender(timeout: .seconds(10), caFile: certificate).send(
            to: "\(base)/control/\(path)", method: method, headers: [:], body: [])
        #expect(answer.status == 200, "\(path): \(answer.text)")
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
    }

    func emit(_ count: Int) async throws { try await control("emit?n=\(count)") }
    func cut() async throws { try await control("cut") }
    func stall() async throws { try await control("stall") }
    func refuse(_ on: Bool) async throws { try await control("refuse?on=\(on ? 1 : 0)") }

    /// The `Last-Event-ID` headers the stream requests carried, in order.
    func lastEventIDsSent() async throws -> [String?] {
        let requests = try await control("state")["requests"] as? [[String: Any]] ?? []
        return requests.filter { ($0["path"] as? String)?.hasPrefix("/stream") == true }.map {
            $0["last-event-id"] as? String
        }
    }

    func stop() async { await process.stop(kill: true) }
}

struct FeedServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
