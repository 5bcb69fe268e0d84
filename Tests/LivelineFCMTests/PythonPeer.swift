import Foundation
import LivelineTestSupport
import Testing

/// `Fixtures/service-account.py`: service-account files and RS256 checks made with Python's
/// `cryptography`, a library nobody here wrote.
enum PythonPeer {
    static let available = ToolRequirement(
        untested: "the FCM assertion against Python's cryptography", provider: "pip:cryptography"
    ).check(ToolRequirement.succeeds(["python3", "-c", "import cryptography"]))

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/service-account.py"
        ).path
    }

    /// Runs the script; fails the test when it does not exit 0, unless `expectFailure`.
    static func run(_ arguments: [String]) async throws -> Subprocess.Result {
        try await Subprocess.run(["python3", script] + arguments)
    }

    /// A fresh service-account key file, written by Python as Google's console writes one.
    static func makeAccount() async throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-sa-\(UUID().uuidString).json")
        let made = try await run(["make", file.path])
        #expect(made.status == 0, "\(made.stderr)")
        return file
    }
}
