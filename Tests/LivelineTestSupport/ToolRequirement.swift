import Foundation

/// An outside program some tests need (PostgreSQL's server, Chromium, Python with a module,
/// curl): whether it is here, and, when it is not, a note of what was not tested.
///
/// Tests that need a missing tool are skipped with the reason, never failed. `scripts/test.sh`
/// installs the tools first; what it could not install is noted, one line per tool, in the file
/// that `LIVELINE_TEST_SKIPPED` names (`what<TAB>how to get it`), from which the script ends the
/// run with one line saying what was not tested and the command that tests it.
public struct ToolRequirement: Sendable {
    /// What goes untested without the tool ("the PostgreSQL store").
    public let untested: String
    /// The package or command that provides it ("postgresql", "pip:h2").
    public let provider: String

    public init(untested: String, provider: String) {
        self.untested = untested
        self.provider = provider
    }

    /// `available`, and when false the note in `LIVELINE_TEST_SKIPPED`'s file.
    public func check(_ available: Bool) -> Bool {
        if !available { note() }
        return available
    }

    /// Appends this requirement to the skipped-tests file, if the run keeps one.
    public func note() {
        guard let path = ProcessInfo.processInfo.environment["LIVELINE_TEST_SKIPPED"], !path.isEmpty else { return }
        let line = Array("\(untested)\t\(provider)\n".utf8)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// Whether `name` is an executable in a directory of the `PATH`.
    public static func onPath(_ name: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }

    /// Whether `arguments` (the first found on the `PATH`) runs and exits 0, its output discarded.
    public static func succeeds(_ arguments: [String]) -> Bool {
        guard let probe = try? SpawnedProcess.launch("/usr/bin/env", arguments: arguments) else { return false }
        probe.waitUntilExit()
        return probe.terminationReason == .exit && probe.terminationStatus == 0
    }
}
