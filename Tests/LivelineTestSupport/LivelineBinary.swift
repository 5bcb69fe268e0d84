import Foundation

/// The `liveline` binary `swift test` builds beside the tests, for the tests that run it as a
/// user does (the CLI's own, and a bridge test that reads its store with `liveline bridge`).
public enum LivelineBinary {
    /// The binary is not built where the tests look.
    public struct Missing: Error, CustomStringConvertible {
        public var looked: [String]
        public var description: String {
            "the liveline binary is not built (looked at \(looked.joined(separator: ", "))): `swift test` builds it beside the tests; `swift build` does too"
        }
    }

    /// The package's root directory.
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The binary: beside the test bundle, or in `.build/debug`.
    public static func url() throws -> URL {
        var candidates: [URL] = []
        if let tests = Bundle.main.executableURL {
            // …/debug/LivelinePackageTests.xctest (Linux: the test executable itself).
            var directory = tests.deletingLastPathComponent()
            if directory.lastPathComponent == "MacOS" {
                directory = directory.deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent()
            }
            if directory.pathExtension == "xctest" { directory = directory.deletingLastPathComponent() }
            candidates.append(directory.appendingPathComponent("liveline"))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/liveline"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(looked: candidates.map(\.path))
        }
        return found
    }
}
