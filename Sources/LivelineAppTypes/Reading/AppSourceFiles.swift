import Foundation

/// The Swift files `--app PATH…` names: files as given, folders searched for `*.swift`.
public enum AppSourceFiles {
    /// Reads every file and returns the app's types.
    ///
    /// Folders are walked in name order, skipping hidden folders and `.build`, so the result
    /// does not depend on the file system's order.
    public static func load(_ paths: [String]) throws(AppSourceError) -> AppTypes {
        var reader = AppSourceReader()
        var any = false
        for path in paths {
            for file in try swiftFiles(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else { throw .unreadable(file) }
                reader.read(source: String(decoding: data, as: UTF8.self), file: file)
                any = true
            }
        }
        guard any else { throw .noSwiftFiles(paths) }
        let types = reader.types()
        guard !types.activityAttributes.isEmpty else { throw .noActivityAttributes(types.files) }
        return types
    }

    static func swiftFiles(at path: String) throws(AppSourceError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .notFound(path) }
        guard isDirectory.boolValue else { return [path] }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { throw .unreadable(path) }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let components = relative.split(separator: "/")
            if components.contains(where: { $0.hasPrefix(".") || $0 == "Pods" || $0 == "DerivedData" }) { continue }
            if relative.hasSuffix(".swift") { files.append(path.hasSuffix("/") ? path + relative : path + "/" + relative) }
        }
        return files.sorted()
    }
}

/// Why the app's source could not be read.
public enum AppSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    case notFound(String)
    case unreadable(String)
    case noSwiftFiles([String])
    case noActivityAttributes([String])

    public var description: String {
        switch self {
        case .notFound(let path): "--app \(path): no such file or folder"
        case .unreadable(let path): "--app \(path): cannot be read"
        case .noSwiftFiles(let paths): "--app \(paths.joined(separator: " ")): no .swift files there"
        case .noActivityAttributes(let files):
            "--app: no type conforming to ActivityAttributes in \(files.count == 1 ? files[0] : "\(files.count) Swift files"); "
                + "expected a declaration like `struct MatchAttributes: ActivityAttributes { struct ContentState: Codable, Hashable { … } }`"
        }
    }
}
