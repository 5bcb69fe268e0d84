import Foundation
import LivelineTestSupport
import Testing

/// The JSON Schema editors use must accept every example and reject the broken ones it can see.
@Suite struct SchemaTests {
    @Test func everyExampleValidatesAgainstTheJSONSchema() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let check = try await Subprocess.run(["python3", root.appendingPathComponent("scripts/check-schema.py").path], mergingErrors: true)
        let output = check.stdout
        #expect(check.status == 0, "scripts/check-schema.py failed (needs: pip install jsonschema pyyaml):\n\(output)")
        #expect(output.contains("ok Scenarios/football.yaml"))
    }
}
