import Crypto
import Foundation
import LivelineTestSupport
import Testing

/// Every command's output read by a reader that goes away early (`… | head -1`, a `less` quit
/// early): the command ends quietly with status 0 (a load test with its own status, its reports
/// written; a server keeps serving), never a crash, and says nothing more on standard error.
@Suite struct ClosedOutputTests {
    /// What a crash, or a write that failed loudly, leaves on standard error.
    static let noise = ["Fatal error", "Broken pipe", "broken pipe", "try!", "Backtrace", "Crash", "EPIPE"]

    /// The result of a quiet end: the status, no signal, and on standard error nothing but what
    /// `allowed` lets through (lines it accepts), a newline at most otherwise.
    static func expectQuietEnd(
        _ result: CLI.Result, status: Int32 = 0, allowed: (Substring) -> Bool = { _ in false },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!result.signalled, "ended by a signal", sourceLocation: sourceLocation)
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        for word in noise {
            #expect(!result.stderr.contains(word), "\(result.stderr)", sourceLocation: sourceLocation)
        }
        let unexpected = result.stderr.split(separator: "\n").filter { !allowed($0) }
        #expect(unexpected.isEmpty, "standard error: \(result.stderr)", sourceLocation: sourceLocation)
    }

    static var scenarios: String { CLI.packageRoot.appendingPathComponent("Scenarios").path }

    @Test(arguments: [
        (["plan", "football.yaml"], 0), (["plan", "football.yaml"], 2),
        (["plan", "football.yaml", "--format", "jsonl"], 1),
        (["plan", "evening.yaml", "--format", "curl"], 3), (["validate", "football.yaml", "delivery.yaml"], 0),
        (["scaffold", "--app", "app", "--stdout"], 1), (["--version"], 0), (["--help"], 0), (["play", "--help"], 2),
    ])
    func aPrinterEndsQuietly(arguments: [String], lines: Int) async throws {
        let paths = arguments.map { $0.hasSuffix(".yaml") || $0 == "app" ? "\(Self.scenarios)/\($0)" : $0 }
        let result = try await CLI.run(paths, closingOutputAfter: lines)
        Self.expectQuietEnd(result)
        #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count <= lines + 1)
    }

    @Test func tokenEndsQuietly() async throws {
        let key = try CLI.file(P256.Signing.PrivateKey().pemRepresentation, suffix: ".p8")
        defer { try? FileManager.default.removeItem(at: key) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        let result = try await CLI.run(
            ["token", "--key", key.path, "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"], closingOutputAfter: 0)
        Self.expectQuietEnd(result)
    }

    /// The play stops as Ctrl-C stops it (its activities ended properly), but quietly: after
    /// the banner, nothing.
    @Test func playEndsItsActivitiesAndQuietly() async throws {
        let file = try CLI.file(PlayCommandTests.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(["play", file.path, "--speed", "30", "--no-view"], closingOutputAfter: 1)
        Self.expectQuietEnd(result) { $0.hasPrefix("embedded mock APNs https://127.0.0.1:") }
        #expect(result.stdout.hasPrefix("+"), "the first push's line: \(result.stdout)")
    }

    /// A load test is over when its summary prints: its files are still written, its status
    /// is its own, and standard error says only where they went.
    @Test func loadStillWritesItsReports() async throws {
        let file = try CLI.file(LoadCommandTests.story, suffix: ".yaml")
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("load-\(UUID().uuidString).json")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: json)
        }
        let loaded = try await CLI.run(
            ["load", file.path, "--activities", "20", "--target", "discard", "--json", json.path],
            closingOutputAfter: 0)
        Self.expectQuietEnd(loaded) { $0 == "wrote \(json.path)" }
        #expect(FileManager.default.fileExists(atPath: json.path))
        let failing = try await CLI.run(
            [
                "load", file.path, "--activities", "20", "--target", "discard", "--threshold", "rate>1000000000000/s",
            ], closingOutputAfter: 0)
        Self.expectQuietEnd(failing, status: 99)
        let merged = try await CLI.run(["report", "merge", json.path], closingOutputAfter: 0)
        Self.expectQuietEnd(merged)
    }

    /// The bridge's commands: `send --follow` read a line at a time, `dead-letters list` and
    /// `record` to standard output; and `serve` itself, whose closed output stops its printing,
    /// not its serving.
    @Test func bridgeCommandsEndQuietlyAndTheServerKeepsServing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-closed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = CLI.packageRoot.path
        let config = "\(root)/Scenarios/sources/stripe.yaml"
        let environment = [
            "STRIPE_WEBHOOK_SECRET": "whsec_demo", "LIVELINE_STATE_DIR": directory.appendingPathComponent("state").path,
        ]
        let port = try PlayCommandTests.closedPort()
        let base = "http://127.0.0.1:\(port)"
        let served = try await CLI.run(
            ["bridge", "serve", "--config", config, "--listen", "127.0.0.1:\(port)"], environment: environment,
            timeout: 120, closingOutputAfter: 0
        ) { bridge, _ in
            let up = await eventually(within: 60, every: .milliseconds(50)) {
                (try? await Subprocess.run(["curl", "-sf", "--max-time", "2", "\(base)/healthz"]).status) == 0
            }
            guard up else {
                Issue.record("the bridge whose output closed did not serve")
                bridge.interrupt()
                return
            }
            _ = try? await Subprocess.run([
                "curl", "-s", "--max-time", "10", "-X", "PUT", "\(base)/v1/activities/58213", "-H",
                "Authorization: Bearer demo-key", "-H", "Content-Type: application/json", "-d",
                #"{"update-token": "\#(String(repeating: "cd", count: 32))", "source": "stripe"}"#,
            ])
            let followed = try? await CLI.run(
                [
                    "bridge", "send", "--config", config, "--url", base, "stripe",
                    "\(root)/Scenarios/sources/stripe/03-payment-intent-succeeded.json", "--follow", "--api-key",
                    "demo-key", "--wait", "30s",
                ], environment: environment, closingOutputAfter: 1)
            if let followed {
                Self.expectQuietEnd(followed)
                #expect(followed.stdout.hasPrefix("202 "), "\(followed.stdout)")
            }
            bridge.interrupt()
        }
        #expect(served.status == 0, "\(served.stderr)")
        for word in Self.noise { #expect(!served.stderr.contains(word), "\(served.stderr)") }

        let letters = try await CLI.run(
            ["bridge", "dead-letters", "list", "--config", config], environment: environment, closingOutputAfter: 0)
        Self.expectQuietEnd(letters)
        let recorded = try await CLI.run(
            ["bridge", "record", "58213", "--config", config], environment: environment, closingOutputAfter: 0)
        Self.expectQuietEnd(recorded) { $0.hasPrefix("note: ") || $0.hasPrefix("warning: ") }
    }

    /// The mock's banner and `--print-pushes` lines go nowhere; it answers on, and stops on SIGTERM.
    @Test func theMockKeepsServing() async throws {
        let port = try PlayCommandTests.closedPort()
        let result = try await CLI.run(
            ["mock-apns", "--h2c", "--accept-any-token", "--listen", "127.0.0.1:\(port)", "--print-pushes"],
            timeout: 60, closingOutputAfter: 0
        ) { mock, _ in
            let request = [
                "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "--http2-prior-knowledge",
                "-H", "apns-topic: com.example.app.push-type.liveactivity", "-H", "apns-push-type: liveactivity",
                "--data", #"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"n":1}}}"#,
                "http://127.0.0.1:\(port)/3/device/\(String(repeating: "ab", count: 32))",
            ]
            var answers: [String] = []
            _ = await eventually(within: 30, every: .milliseconds(50)) {
                (try? await Subprocess.run(request).stdout) == "200"
            }
            for _ in 0..<2 { answers.append((try? await Subprocess.run(request).stdout) ?? "") }
            #expect(answers == ["200", "200"], "the mock answers after its output closed")
            mock.terminate()
        }
        #expect(result.status == 0, "\(result.stderr)")
        for word in Self.noise { #expect(!result.stderr.contains(word), "\(result.stderr)") }
    }
}
