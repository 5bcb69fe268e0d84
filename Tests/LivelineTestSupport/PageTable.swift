import Foundation

/// A table of one of the repository's pages (`docs/answers.md`), for tests that check every row
/// against the code, so the page and the code cannot drift apart.
public enum PageTable {
    /// The page at `path` from the package's root, or "" when it cannot be read (a test then
    /// finds no rows and says so).
    public static func page(_ path: String) -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    /// The rows of the first table of `page` whose header line starts with `header`, each split
    /// into its cells (trimmed), without the header and the separator line.
    public static func rows(of page: String, after header: String) -> [[String]] {
        var rows: [[String]] = []
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
                text.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map {
                    $0.trimmingCharacters(in: .whitespaces)
                })
        }
        return rows
    }
}
