#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Crypto
import Foundation
import LivelineTestSupport
import Testing

/// A bridge holding the wrong APNs key, as an operator meets it: `liveline mock-apns` checks
/// provider tokens against the right key, `bridge serve` signs with another. The bridge turns
/// unready with the reason and the fix, keeps the push, and once the right key is in the file
/// and the process gets SIGHUP it is ready again and the push is delivered.
@Suite struct BridgeReloadTests {
    static let keyID = "ABCDE12345"
    static let teamID = "TEAM123456"

    @Test func aWrongKeyHaltsTheBridgeAndSIGHUPWithTheRightKeyResumesIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-bridge-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let right = P256.Signing.PrivateKey().pemRepresentation
        let rightFile = directory.appendingPathComponent("right.p8")
        let keyFile = directory.appendingPathComponent("key.p8")
        try right.write(to: rightFile, atomically: true, encoding: .utf8)
        try P256.Signing.PrivateKey().pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        for file in [rightFile, keyFile] {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        }
        let config = directory.appendingPathComponent("bridge.yaml")
        try
            (BridgeCommandTests.config(directory: directory)
                + """

                apns:
                  key: \(keyFile.path)
                  key-id: \(Self.keyID)
                  team-id: \(Self.teamID)
                  probe-interval: 1s
                """).write(to: config, atomically: true, encoding: .utf8)
        let body = directory.appendingPathComponent("confirmed.json")
        try #"{"event_name":"DASHER_CONFIRMED","external_delivery_id":"D-9"}"#.write(
            to: body, atomically: true, encoding: .utf8)
        let environment = ["DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo"]
        let ca = directory.appendingPathComponent("ca.pem").path

        let bridge = try await CLI.withMockAndBridge(
            mock: [
                "--listen", "127.0.0.1:0", "--write-ca", ca, "--auth-key", rightFile.path, "--key-id", Self.keyID,
                "--team-id", Self.teamID,
            ],
            bridge: ["--config", config.path, "--ca-file", ca], environment: environment, timeout: 150
        ) { process, base, out in
            do {
                try await Self.exercise(base: base, process: process, config: config.path, body: body.path) {
                    try? FileManager.default.removeItem(at: keyFile)
                    try? FileManager.default.copyItem(at: rightFile, to: keyFile)
                }
            } catch {
                Issue.record("\(error)\n\(out.text)")
            }
            process.interrupt()
        }
        #expect(bridge?.status == 0, "\(bridge?.stderr ?? "")")
        let log = (bridge?.stdout ?? "") + (bridge?.stderr ?? "")
        #expect(log.contains("APNs refused the setup"), "\(log)")
        #expect(log.contains("SIGHUP: the APNs key was read again"), "\(log)")
        #expect(log.contains("APNs took the setup again"), "\(log)")
    }

    /// Registers an activity, sends it a webhook, waits for the halt, puts the right key in
    /// place (`fix`), sends SIGHUP, and waits for the push to be delivered.
    private static func exercise(
        base: String, process: SpawnedProcess, config: String, body: String, fix: () -> Void
    ) async throws {
        let token = String(repeating: "e1", count: 32)
        _ = try? await BridgeCommandTests.curl([
            "-X", "PUT", "\(base)/v1/activities/D-9", "-H", "Authorization: Bearer demo-key", "-H",
            "Content-Type: application/json", "-d", #"{"update-token": "\#(token)"}"#,
        ])
        let sent = try? await CLI.run(
            ["bridge", "send", "--config", config, "--url", base, "doordash", body],
            environment: ["DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo"])
        // Counted from the webhook's 202 (a process's start on a busy machine is not the bridge's).
        let sentAt = ContinuousClock.now
        #expect(sent?.stdout.hasPrefix("202 ") == true, "\(sent?.stdout ?? "") \(sent?.stderr ?? "")")
        var readiness = ""
        try await eventually("the bridge says it is halted", within: 30, every: .milliseconds(100)) {
            readiness = (try? await BridgeCommandTests.curl(["\(base)/readyz"])) ?? ""
            return readiness.contains("apns-halted")
        }
        // The 5 s bound, from APNs' refusal, is APNsHaltTests'; here, on a machine that may be
        // busy with other builds, the whole way from a process's webhook is bounded loosely.
        let unready = ContinuousClock.now - sentAt
        #expect(unready < .seconds(15), "unready only after \(unready)")
        #expect(readiness.contains("InvalidProviderToken"), "\(readiness)")
        #expect(readiness.contains("check the Key ID"), "\(readiness)")
        // Halted, the push waits with its attempts unspent.
        try? await Task.sleep(for: .seconds(2))
        let shown =
            (try? await BridgeCommandTests.curl(["\(base)/v1/activities/D-9", "-H", "Authorization: Bearer demo-key"]))
            ?? ""
        #expect(shown.contains(#""queued-pushes":1"#), "\(shown)")

        fix()
        let fixedAt = ContinuousClock.now
        kill(process.processIdentifier, SIGHUP)
        var ready = ""
        try await eventually("the bridge is ready again", within: 30, every: .milliseconds(100)) {
            ready = (try? await BridgeCommandTests.curl(["-w", " %{http_code}", "\(base)/readyz"])) ?? ""
            return ready.hasSuffix(" 200")
        }
        #expect(ready.hasSuffix(" 200"), "\(ready)")
        let readyAfter = ContinuousClock.now - fixedAt
        #expect(readyAfter < .seconds(15), "ready only after \(readyAfter)")
        print(
            "bridge serve with the wrong key: unready \(unready) after the webhook's 202; ready \(readyAfter) after SIGHUP"
        )
        var delivered = ""
        try await eventually("the push is delivered", within: 30, every: .milliseconds(100)) {
            delivered =
                (try? await BridgeCommandTests.curl([
                    "\(base)/v1/activities/D-9", "-H", "Authorization: Bearer demo-key",
                ])) ?? ""
            return delivered.contains(#""status":200"#)
        }
        #expect(delivered.contains(#""queued-pushes":0"#), "\(delivered)")
    }
}
