import Foundation
import Testing

/// The JSON Schema editors use must accept every example and reject the broken ones it can see.
@Suite struct SchemaTests {
    @Test func everyExampleValidatesAgainstTheJSONSchema() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/check-schema.py").path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "scripts/check-schema.py failed (needs: pip install jsonschema pyyaml):\n\(output)")
        #expect(output.contains("ok Scenarios/football.yaml"))
    }
}
