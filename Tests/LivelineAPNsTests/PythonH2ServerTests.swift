import Foundation
import Liveline
import LivelineAPNs
import LivelineTestSupport
import NIOPosix
import Testing

/// The client against Python's h2 (a strict HTTP/2 state machine nobody here wrote), run by
/// `scripts/check/h2-conformance.py serve`: padded and CONTINUATION-split answers, 16-byte stream
/// windows, SETTINGS changes mid-connection, RST_STREAM, GOAWAY and a protocol error.
/// Skipped where `python3 -c 'import h2'` fails (`.ci/run` installs it).
@Suite(.serialized, .enabled(if: PythonH2Server.isAvailable, "needs python3 with h2 (pip install h2)"))
struct PythonH2ServerTests {
    @Test func theClientCopesWithWhatAStrictServerSends() async throws {
        let server = try await PythonH2Server.start()
        defer { server.stop() }
        let client = try APNsClient(
            configuration: .init(
                endpoint: APNsEndpoint(url: "http://127.0.0.1:\(server.port)"), requestTimeout: .seconds(30)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let body = Array(repeating: UInt8(ascii: "x"), count: 300)
        // Bodies larger than the 16-byte windows, more requests than the 4 streams allowed.
        let answers = try await withThrowingTaskGroup(of: APNsResponse.self) { group in
            for _ in 0..<12 { group.addTask { try await client.send(Self.request("ok", body: body)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 12 && answers.allSatisfy { $0.status == 200 && $0.apnsID == "id-ok-300" })
        let padded = try await client.send(Self.request("padded"))
        #expect(padded.status == 200 && padded.apnsID == "padded" && padded.body == Array("hello".utf8))
        let continued = try await client.send(Self.request("continuation"))
        #expect(continued.status == 200 && continued.apnsID == "continued")
        // A header table of 0 and 2 streams from now on: h2 refuses a client that ignores them.
        #expect(try await client.send(Self.request("settings")).status == 200)
        let after = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await client.send(Self.request("ok", body: body)).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(after == Array(repeating: 200, count: 8))
        await #expect(throws: APNsTransportError.streamReset(host: "127.0.0.1:\(server.port)", code: "REFUSED_STREAM"))
        {
            _ = try await client.send(Self.request("reset"))
        }
        #expect(client.connectionsMade == 1)
        await client.shutdown()
        #expect(!server.output().contains("violation"), "\(server.output())")
    }

    @Test func aGoAwayArrivesWithItsCodeAndReason() async throws {
        let server = try await PythonH2Server.start()
        defer { server.stop() }
        let client = try APNsClient(
            configuration: .init(endpoint: APNsEndpoint(url: "http://127.0.0.1:\(server.port)")),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        #expect(try await client.send(Self.request("ok")).status == 200)
        do {
            _ = try await client.send(Self.request("goaway"))
            Issue.record("answered")
        } catch let error as APNsTransportError {
            #expect(
                error
                    == .goingAway(
                        host: "127.0.0.1:\(server.port)", code: "ENHANCE_YOUR_CALM", reason: "TooManyRequests"))
            #expect(error.description == "GOAWAY ENHANCE_YOUR_CALM from 127.0.0.1:\(server.port): TooManyRequests")
        }
        await client.shutdown()
    }

    @Test func aProtocolErrorIsNamedAndAnsweredWithGoAway() async throws {
        let server = try await PythonH2Server.start()
        defer { server.stop() }
        let client = try APNsClient(
            configuration: .init(endpoint: APNsEndpoint(url: "http://127.0.0.1:\(server.port)")),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        do {
            _ = try await client.send(Self.request("protocol-error"))
            Issue.record("answered")
        } catch let error as APNsTransportError {
            #expect(
                error.description
                    == "protocol error from 127.0.0.1:\(server.port): PROTOCOL_ERROR: CONTINUATION without HEADERS")
        }
        await client.shutdown()
        let observed = await eventually(within: 10) {
            server.output().contains("observed: client GOAWAY PROTOCOL_ERROR CONTINUATION without HEADERS")
        }
        #expect(observed, "\(server.output())")
    }

    static func request(_ token: String, body: [UInt8] = Array("{}".utf8)) -> APNsRequest {
        .push(
            token: token,
            headers: PushHeaders(topic: "com.example.app.push-type.liveactivity", priority: .low, expiration: 0),
            payload: body)
    }
}

/// `scripts/check/h2-conformance.py serve`, as a child process on an ephemeral loopback port.
final class PythonH2Server: @unchecked Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/check/h2-conformance.py").path

    static let isAvailable = ToolRequirement(untested: "the client against Python's h2", provider: "pip:h2")
        .check(ToolRequirement.succeeds(["python3", "-c", "import h2"]))

    let port: Int
    private let process: SpawnedProcess
    private let input: Pipe
    private let lines: LineCollector

    private init(port: Int, process: SpawnedProcess, input: Pipe, lines: LineCollector) {
        self.port = port
        self.process = process
        self.input = input
        self.lines = lines
    }

    static func start() async throws -> PythonH2Server {
        let output = Pipe()
        let input = Pipe()
        let lines = LineCollector()
        output.fileHandleForReading.readabilityHandler = { handle in lines.append(handle.availableData) }
        let process = try SpawnedProcess.launch(
            "/usr/bin/env", arguments: ["python3", script, "serve"], input: input, output: output)
        var port: Int?
        await eventually(within: 30, every: .milliseconds(20)) {
            port = lines.all.first(where: { $0.hasPrefix("listening ") }).flatMap { Int($0.dropFirst(10)) }
            return port != nil
        }
        if let port { return PythonH2Server(port: port, process: process, input: input, lines: lines) }
        process.terminate()
        throw CocoaError(
            .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the h2 server did not start: \(lines.all)"])
    }

    /// What the server printed so far.
    func output() -> String { lines.all.joined(separator: "\n") }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }
}

/// Lines of a child's output, from its reader thread.
private final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var lines: [String] = []

    func append(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}
