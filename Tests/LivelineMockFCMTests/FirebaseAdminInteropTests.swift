import Foundation
import LivelineCore
import LivelineMockFCM
import LivelineTestSupport
import Testing

/// The mock FCM against a client nobody here wrote: the Firebase Admin SDK for Python, whose
/// google-auth signs the service account's assertion and exchanges it at the mock's token
/// endpoint, and which then sends over HTTP/1.1 as it does to fcm.googleapis.com: over TLS
/// (trusting the mock's certificate through `REQUESTS_CA_BUNDLE`, as a backend would trust a
/// corporate proxy's) and without.
@Suite struct FirebaseAdminInteropTests {
    static let available = ToolRequirement(
        untested: "the mock FCM against the Firebase Admin SDK", provider: "pip:firebase-admin"
    ).check(ToolRequirement.succeeds(["python3", "-c", "import firebase_admin, google.auth"]))

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/firebase-admin-send.py"
        ).path
    }

    @Test(
        .enabled(if: available, "needs python3 with firebase-admin (python3 -m pip install firebase-admin)"),
        arguments: [false, true])
    func theAdminSDKSendsAndUnderstandsTheMocksErrors(tls: Bool) async throws {
        let temporary = FileManager.default.temporaryDirectory
        let certificate = temporary.appendingPathComponent("liveline-admin-ca-\(UUID().uuidString).pem")
        var configuration = MockFCMConfiguration()
        if tls { configuration.transport = .tls(.selfSigned(writeCertificateTo: certificate.path)) }
        let mock = try await MockFCMServer.start(configuration)
        #expect(mock.baseURL.hasPrefix(tls ? "https://" : "http://"))
        let file = temporary.appendingPathComponent("liveline-admin-sa-\(UUID().uuidString).json")
        try Data(try mock.makeServiceAccount(project: "liveline-interop")).write(to: file)
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: certificate)
        }
        var environment = ProcessInfo.processInfo.environment
        if tls { environment["REQUESTS_CA_BUNDLE"] = certificate.path }
        mock.register(.token("gone-token-1"), project: "liveline-interop", installed: false)
        mock.register(.token("their-token-1"), project: "another-project")
        mock.inject(.quotaExceeded(retryAfter: 1), for: .token("busy-token-1"))
        var withoutRetryAfter = FCMErrorAnswer.quotaExceeded(retryAfter: 1)
        withoutRetryAfter.retryAfter = nil
        mock.inject(withoutRetryAfter, for: .token("over-quota-1"))

        let run = try await Subprocess.run(
            [
                "python3", Self.script, mock.baseURL, file.path, "reg-token-1", "gone-token-1", "their-token-1",
                "busy-token-1", "over-quota-1",
            ], environment: environment)
        await mock.stop()
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        guard case .object(let out) = try JSONParser.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            Issue.record("the SDK's side printed \(run.stdout)")
            return
        }
        // The message the SDK built, as the mock accepted it and the phone showed it.
        guard case .string(let name)? = out["name"] else {
            Issue.record("no message name in \(run.stdout)")
            return
        }
        #expect(name.hasPrefix("projects/liveline-interop/messages/"))
        let accepted = mock.messages().filter { $0.message.recipient == .token("reg-token-1") }
        #expect(accepted.count == 1)
        #expect(accepted.first?.name == name)
        #expect(accepted.first?.message.priority == .high)
        #expect(accepted.first?.message.collapseKey == "match")
        #expect(accepted.first?.message.ttl == 300_000)
        #expect(mock.phone(.token("reg-token-1"))?.notifications["match"]?.content.title == "Northbridge 1-0 Harbour")
        #expect(out["dry_run"] == .string("projects/liveline-interop/messages/fake_message_id"))
        #expect(mock.stats().tokensGranted == 1)

        // Each error as the SDK's own exception: it read FCM's error body the mock wrote.
        func failure(_ key: String) -> (name: String, code: String)? {
            guard case .object(let error)? = out[key], case .string(let name)? = error["class"],
                case .string(let code)? = error["code"]
            else { return nil }
            return (name, code)
        }
        #expect(failure("unregistered")?.name == "UnregisteredError")
        #expect(failure("unregistered")?.code == "NOT_FOUND")
        #expect(failure("sender_id_mismatch")?.name == "SenderIdMismatchError")
        #expect(failure("reserved_key")?.name == "InvalidArgumentError")
        #expect(failure("quota")?.name == "QuotaExceededError", "\(run.stdout)")
        // A 429 with Retry-After the SDK waits out and sends again, as it should.
        guard case .string(let retried)? = out["after_retry"] else {
            Issue.record("the SDK did not deliver after QUOTA_EXCEEDED with Retry-After: \(run.stdout)")
            return
        }
        #expect(mock.messages().contains { $0.name == retried && $0.message.recipient == .token("busy-token-1") })
        #expect(mock.stats().refused["QUOTA_EXCEEDED"] == 2)
    }
}
