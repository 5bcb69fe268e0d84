import Foundation

/// `--json FILE`: the result as stable JSON (sorted keys, two-space indent), and back.
public enum JSONReport {
    public static func encode(_ result: LoadResult) throws(LoadError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(result)
        } catch {
            throw .cannotWrite(path: "the result as JSON", cause: "\(error)")
        }
    }

    /// Reads a result written by `--json`; `name` names it in errors.
    public static func decode(_ data: Data, name: String) throws(LoadError) -> LoadResult {
        struct Header: Decodable {
            var format: String?
            var version: Int?
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw .invalidFile(
                location: name, problem: "not JSON, or not an object; expected a file written by liveline load --json")
        }
        guard header.format == LoadResult.formatName else {
            throw .invalidFile(
                location: name,
                problem:
                    "\"format\" is \(header.format.map { "'\($0)'" } ?? "missing"); expected '\(LoadResult.formatName)' (a file written by liveline load --json)"
            )
        }
        guard let version = header.version, version <= LoadResult.currentVersion else {
            throw .invalidFile(
                location: name,
                problem:
                    "version \(header.version.map(String.init) ?? "missing") is newer than this liveline reads (\(LoadResult.currentVersion)); update liveline"
            )
        }
        do {
            return try JSONDecoder().decode(LoadResult.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalidFile(location: name, problem: "missing \"\(key.stringValue)\" at \(path(context.codingPath))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .invalidFile(
                location: name, problem: "unexpected value at \(path(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw .invalidFile(location: name, problem: "\(error)")
        }
    }

    /// Reads a result file.
    public static func read(file path: String) throws(LoadError) -> LoadResult {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidFile(
                location: path,
                problem:
                    "the file \(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist")")
        }
        return try decode(data, name: path)
    }

    /// Writes `result` to `path`.
    public static func write(_ result: LoadResult, to path: String) throws(LoadError) {
        let data = try encode(result)
        do {
            try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .cannotWrite(path: path, cause: error.localizedDescription)
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty
            ? "the top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
