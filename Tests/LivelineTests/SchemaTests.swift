import Foundation
import LivelineTestSupport
import Testing

/// The JSON Schema editors use must accept every example and reject the broken ones it can see.
@Suite struct SchemaTests {
    /// Python with jsonschema and PyYAML, which the check is written with.
    static let checkerIsAvailable = ToolRequirement(untested: "the JSON Schemas", provider: "pip:jsonschema pip:pyyaml")
        .check(ToolRequirement.succeeds(["python3", "-c", "import jsonschema, yaml"]))

    @Test(.enabled(if: checkerIsAvailable, "needs python3 with jsonschema and PyYAML (pip install jsonschema pyyaml)"))
    func everyExampleValidatesAgainstTheJSONSchema() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let check = try await Subprocess.run(
            ["python3", root.appendingPathComponent("scripts/check/check-schema.py").path], mergingErrors: true)
        let output = check.stdout
        #expect(
            check.status == 0, "scripts/check/check-schema.py failed (needs: pip install jsonschema pyyaml):\n\(output)"
        )
        #expect(output.contains("ok Scenarios/football.yaml"))
    }
}
