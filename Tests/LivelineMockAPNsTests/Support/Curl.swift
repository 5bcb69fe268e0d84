import Foundation
import LivelineTestSupport

/// Runs the real `curl` binary: a client nobody here wrote.
enum Curl {
    struct Result {
        var status: Int
        var httpVersion: String
        var headers: [String: String]
        var body: String
        var exitCode: Int32

        var reason: String? {
            guard let data = body.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["reason"] as? String
        }
    }

    static let isAvailable = ToolRequirement(untested: "the mock against curl", provider: "curl")
        .check(ToolRequirement.onPath("curl"))

    /// Runs `curl -s -i <arguments>` and parses the last response's status line and headers.
    static func run(_ arguments: [String], timeout: TimeInterval = 10) async throws -> Result {
        let curl = try await Subprocess.run(
            ["curl", "-s", "-i", "--max-time", String(Int(timeout))] + arguments)
        let text = curl.stdout
        let parts = text.components(separatedBy: "\r\n\r\n")
        var status = 0
        var version = ""
        var headers: [String: String] = [:]
        let head = parts.first ?? ""
        for (index, line) in head.components(separatedBy: "\r\n").enumerated() {
            if index == 0 {
                let fields = line.split(separator: " ")
                version = fields.first.map(String.init) ?? ""
                status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            } else if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
        }
        return Result(
            status: status, httpVersion: version, headers: headers,
            body: parts.dropFirst().joined(separator: "\r\n\r\n"), exitCode: curl.status)
    }
}
