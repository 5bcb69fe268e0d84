import Foundation
import LivelineTestSupport
import Testing

/// `liveline --version`: the release and the commit the binary was built from, which the
/// container image's labels repeat.
@Suite struct VersionCommandTests {
    /// What git says the package's commit is (`-dirty` with uncommitted changes to tracked
    /// files), as the build stamps it; nil when the package is not its own git repository.
    static func gitCommit() -> String? {
        func git(_ arguments: [String]) -> (status: Int32, output: String)? {
            let pipe = Pipe()
            guard
                let process = try? SpawnedProcess.launch(
                    "/usr/bin/env", arguments: ["git", "-C", CLI.packageRoot.path] + arguments, output: pipe)
            else { return nil }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (
                process.terminationStatus,
                String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            )
        }
        guard let top = git(["rev-parse", "--show-toplevel"]), top.status == 0,
            URL(fileURLWithPath: top.output).resolvingSymlinksInPath().path
                == CLI.packageRoot.resolvingSymlinksInPath().path,
            let head = git(["rev-parse", "HEAD"]), head.status == 0,
            let diff = git(["--no-optional-locks", "diff", "--quiet", "HEAD", "--"])
        else { return nil }
        return diff.status == 0 ? head.output : head.output + "-dirty"
    }

    @Test func printsTheVersionAndTheCommitItWasBuiltFrom() async throws {
        let result = try await CLI.run(["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.trimmingCharacters(in: .newlines)
        let stamped = ProcessInfo.processInfo.environment["LIVELINE_GIT_COMMIT"].flatMap { $0.isEmpty ? nil : $0 }
        if let commit = stamped ?? Self.gitCommit() {
            #expect(line.hasPrefix("liveline "), "\(line)")
            #expect(line.hasSuffix(" (commit \(commit))"), "expected commit \(commit): \(line)")
        } else {
            #expect(line.hasSuffix("(commit unknown: built without git or LIVELINE_GIT_COMMIT)"), "\(line)")
        }
        let number = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        #expect(
            number.split(separator: ".").count == 3 && number.split(separator: ".").allSatisfy { Int($0) != nil },
            "\(line)")
    }

    /// The Dockerfile's default version label is the binary's version.
    @Test func theImageLabelDefaultIsTheBinarysVersion() async throws {
        let result = try await CLI.run(["--version"])
        let dockerfile = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("Docker/Dockerfile"), encoding: .utf8)
        let number = result.stdout.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
        #expect(
            dockerfile.contains("ARG LIVELINE_VERSION=\(number)\n"),
            "Docker/Dockerfile's LIVELINE_VERSION is not \(number)")
    }
}
