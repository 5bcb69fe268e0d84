import Foundation
import Logging
import Synchronization
import Testing
@testable import LivelineBridge

/// `bridge serve --log-format json`: one JSON object a line that a log collector parses.
@Suite struct JSONLogHandlerTests {
    /// The lines a handler wrote.
    final class Lines: Sendable {
        let written = Mutex<[String]>([])
    }

    /// A logger whose lines are kept.
    static func logger(_ lines: Lines, metadata: Logger.Metadata = [:]) -> Logger {
        var logger = Logger(label: "liveline.test") { label in
            var handler = JSONLogHandler(label: label) { line in lines.written.withLock { $0.append(line) } }
            handler.logLevel = .debug
            return handler
        }
        for (key, value) in metadata { logger[metadataKey: key] = value }
        return logger
    }

    @Test func eachEventIsOneParsableLineWithItsFieldsAndMetadata() throws {
        let lines = Lines()
        let logger = Self.logger(lines, metadata: ["instance": "bridge-1"])
        logger.info(
            "stored \"quoted\"\nand a new line",
            metadata: [
                "source": "doordash", "count": "\(3)", "message": "a key named like a field",
                "nested": ["list": ["a", "b"], "tab": "\t\u{1}"],
            ])
        logger.trace("below the level")
        let written = lines.written.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1, "one line: \(line)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["logger"] as? String == "liveline.test")
        #expect(object["message"] as? String == "stored \"quoted\"\nand a new line")
        #expect(object["module"] as? String == "LivelineBridgeTests")
        #expect(object["source"] as? String == "doordash")
        #expect(object["count"] as? String == "3")
        #expect(object["instance"] as? String == "bridge-1")
        #expect(object["metadata.message"] as? String == "a key named like a field")
        let nested = try #require(object["nested"] as? [String: Any])
        #expect(nested["list"] as? [String] == ["a", "b"])
        #expect(nested["tab"] as? String == "\t\u{1}")
        let time = try #require(object["time"] as? String)
        #expect(time.hasPrefix("20") && time.hasSuffix("Z") && time.contains("T"), "\(time)")
    }
}
