import Foundation
import Testing
@testable import liveline_fuzz

/// The fuzz targets over their seeds and past findings, in the normal build: every finding
/// stays fixed, and every target's seeds reach the code behind its parser (so a fuzzer started
/// from them explores more than the rejection paths).
@Suite struct FuzzCorpusTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func inputs(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let folder = repository.appendingPathComponent("scripts/fuzz/\(kind)/\(target.name)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    static func run(_ target: FuzzTarget, _ file: URL) throws -> Bool {
        let data = try Data(contentsOf: file)
        return data.withUnsafeBytes { target.run($0) }
    }

    @Test("each target's seeds reach past its checks", arguments: FuzzTarget.all.map(\.name))
    func seedsAreAccepted(name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        // The mapping target reads Scenarios/bridge.example.yaml from the working directory.
        _ = FileManager.default.changeCurrentDirectoryPath(Self.repository.path)
        let seeds = Self.inputs("corpus", target)
        #expect(!seeds.isEmpty, "no seeds in scripts/fuzz/corpus/\(name)")
        let accepted = try seeds.filter { try Self.run(target, $0) }
        #expect(!accepted.isEmpty, "none of the \(seeds.count) seeds of \(name) got past its checks")
    }

    @Test("past findings replay without a crash or a hang", arguments: FuzzTarget.all.map(\.name))
    func regressionsStayFixed(name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        _ = FileManager.default.changeCurrentDirectoryPath(Self.repository.path)
        for file in Self.inputs("regressions", target) {
            _ = try Self.run(target, file)
        }
    }

    @Test func aSignedWebhookVerifiesAndAnUnsignedOneDoesNot() throws {
        let target = try #require(FuzzTarget.named("webhook-verification"))
        for file in Self.inputs("corpus", target) where file.lastPathComponent.hasPrefix("scheme-") {
            let accepted = try Self.run(target, file)
            let scheme = file.lastPathComponent
            // The last scheme is `none`, which accepts anything; every other needs the signature.
            if scheme.hasPrefix("scheme-9-") {
                #expect(accepted, "\(scheme)")
            } else {
                #expect(accepted == scheme.hasSuffix("-signed"), "\(scheme)")
            }
        }
    }
}
