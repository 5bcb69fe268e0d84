import Testing

/// A word where a command is expected that names none: a usage error, even with `--help`.
@Suite struct UnknownCommandTests {
    @Test(arguments: [
        (["mock-wns", "--help"], "'mock-wns' is not a command of liveline;"),
        (["mock-wns"], "'mock-wns' is not a command of liveline;"),
        (["bridge", "frobnicate", "--help"], "'frobnicate' is not a command of liveline bridge;"),
        (["report", "joint"], "'joint' is not a command of liveline report;"),
    ])
    func anUnknownCommandIsAUsageErrorThatSaysSo(arguments: [String], message: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64, "\(result.stdout)")
        #expect(result.stdout.isEmpty, "no help printed: \(result.stdout)")
        #expect(result.stderr.hasPrefix("error: \(message)"), "\(result.stderr)")
        #expect(result.stderr.contains("its commands are "), "\(result.stderr)")
    }

    @Test(arguments: [
        ["--help"], ["help", "play"], ["mock-fcm", "--help"], ["bridge", "--help"], ["bridge", "serve", "--help"],
        ["--version"],
    ])
    func knownCommandsAndHelpStillWork(arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.isEmpty)
    }
}
