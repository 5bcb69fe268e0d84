import Foundation
import Testing

/// A table of one of the repository's pages (`docs/answers.md`), for tests that check every row
/// against the code, so the page and the code cannot drift apart.
public enum PageTable {
    /// One row of a table, split into its cells; a test's argument, shown as the row.
    public struct Row: CustomTestStringConvertible, Sendable {
        /// The cells, trimmed.
        public var cells: [String]
        /// A row of `cells`.
        public init(cells: [String]) { self.cells = cells }
        public var testDescription: String { cells.joined(separator: " | ") }
    }

    /// The HTTP status a row's status cell names: the number, or for a class of statuses (`5xx`)
    /// one of the class that the tables name nowhere else (302, 418, 502); nil when it is neither.
    public static func status(_ cell: String) -> Int? {
        switch cell {
        case "3xx": 302
        case "4xx": 418
        case "5xx": 502
        default: Int(cell)
        }
    }

    /// The page at `path` from the package's root, or "" when it cannot be read (a test then
    /// finds no rows and says so).
    public static func page(_ path: String) -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    /// The rows of the first table of `page` whose header line starts with `header`, without the
    /// header and the separator line.
    public static func rows(of page: String, after header: String) -> [Row] {
        var rows: [Row] = []
        var inside = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if !inside {
                inside = text.hasPrefix(header)
                continue
            }
            guard text.hasPrefix("|") else {
                if !rows.isEmpty { break }
                continue
            }
            if text.hasPrefix("|---") { continue }
            rows.append(
                Row(
                    cells: text.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }))
        }
        return rows
    }
}
