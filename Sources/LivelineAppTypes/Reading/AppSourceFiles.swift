import Foundation

/// The Swift files `--app PATH…` names: files as given, folders searched for `*.swift`.
public enum AppSourceFiles {
    /// Reads every file and returns the app's types; `choices` (`--app-type`) say which of
    /// two declarations of one name to use (``AppTypes/choosing(_:)``).
    ///
    /// Folders are walked in name order, skipping hidden folders and `.build`, so the result
    /// does not depend on the file system's order; a folder given through a symbolic link is
    /// followed.
    public static func load(_ paths: [String], choices: [String] = []) throws(AppSourceError) -> AppTypes {
        var reader = AppSourceReader()
        var modules: [String: String] = [:]
        var any = false
        for path in paths {
            for file in try swiftFiles(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else { throw .unreadable(file) }
                reader.read(source: String(decoding: data, as: UTF8.self), file: file)
                modules[file] = module(of: file, root: path)
                any = true
            }
        }
        guard any else { throw .noSwiftFiles(paths) }
        let types = try reader.types(modules: modules).choosing(choices)
        guard !types.activityAttributes.isEmpty else {
            throw .noActivityAttributes(types.files, syntaxErrors: types.syntaxErrors)
        }
        return types
    }

    /// The module a file belongs to, for `--app-type Module.Name`: the folder after `Sources/`
    /// in its path, else the first folder below `root`, else `root`'s own name.
    static func module(of file: String, root: String) -> String? {
        let components = file.split(separator: "/").map(String.init)
        if let index = components.lastIndex(of: "Sources"), index + 2 < components.count {
            return components[index + 1]
        }
        let rootComponents = root.split(separator: "/").map(String.init)
        let relative = components.starts(with: rootComponents) ? Array(components.dropFirst(rootComponents.count)) : []
        if relative.count >= 2 { return relative[0] }
        let folder = file == root ? components.dropLast().last : rootComponents.last
        return folder.flatMap { $0 == "." || $0 == ".." ? nil : $0 }
    }

    static func swiftFiles(at path: String) throws(AppSourceError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .notFound(path) }
        guard isDirectory.boolValue else { return [path] }
        // The enumerator does not descend into a symbolic link: walk what it points at, and
        // name the files under the path as given.
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let enumerator = FileManager.default.enumerator(atPath: target) else { throw .unreadable(path) }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let components = relative.split(separator: "/")
            if components.contains(where: { $0.hasPrefix(".") || $0 == "Pods" || $0 == "DerivedData" }) { continue }
            if relative.hasSuffix(".swift") {
                files.append(path.hasSuffix("/") ? path + relative : path + "/" + relative)
            }
        }
        return files.sorted()
    }
}

/// Why the app's source could not be read.
public enum AppSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    case notFound(String)
    case unreadable(String)
    case noSwiftFiles([String])
    case noActivityAttributes([String], syntaxErrors: [SwiftSyntaxError])
    /// An `--app-type` that names no type or file read.
    case unknownChoice(String, candidates: [String])

    public var description: String {
        switch self {
        case .notFound(let path): "--app \(path): no such file or folder"
        case .unreadable(let path): "--app \(path): cannot be read"
        case .noSwiftFiles(let paths): "--app \(paths.joined(separator: " ")): no .swift files there"
        case .noActivityAttributes(let files, let syntaxErrors):
            "--app: no type conforming to ActivityAttributes in \(files.count == 1 ? files[0] : "\(files.count) Swift files"); "
                + "expected a declaration like `struct MatchAttributes: ActivityAttributes { struct ContentState: Codable, Hashable { … } }`"
                + (syntaxErrors.isEmpty
                    ? ""
                    : "; the sources have syntax errors, which may hide it: "
                        + syntaxErrors.prefix(3).map(\.description).joined(separator: "; "))
        case .unknownChoice(let choice, let candidates):
            "--app-type \(choice): no type or file of that name in the sources read"
                + (candidates.isEmpty
                    ? "" : "; the names declared twice are chosen with one of: " + candidates.joined(separator: ", "))
        }
    }
}
