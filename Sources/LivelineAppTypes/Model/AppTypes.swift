import Liveline

/// The app's `ActivityAttributes` types and every type they use, read from its Swift source.
///
/// Plain values: ``AppSourceReader`` builds it, ``DecodeChecker`` walks values against it.
/// Names are qualified with their outer types (`MatchAttributes.ContentState.Phase`), and a
/// reference is resolved the way Swift resolves it, from the innermost scope outwards.
///
/// A name declared in two files (a backup copy, two targets, a plugin and its example app) is
/// never chosen silently: the first by path is used unless a choice names the other
/// (``choosing(_:)``), and ``ambiguities`` says which names were not chosen by the user.
public struct AppTypes: Sendable {
    /// Every declaration by qualified name: the one in use where a name is declared twice.
    public private(set) var declarations: [String: AppTypeDeclaration]
    /// Every declaration read, in file and line order, duplicates included.
    public let all: [AppTypeDeclaration]
    /// The files read, as named.
    public var files: [String]
    /// The module of each file: the folder below `Sources/`, or below the `--app` folder.
    public var modules: [String: String]
    /// Syntax errors in the sources read, as the Swift parser reports them. Declarations
    /// after one may be read wrongly or not at all.
    public var syntaxErrors: [SwiftSyntaxError]
    /// The files whose declarations are preferred where a name is declared in several.
    public private(set) var chosenFiles: Set<String>

    public init(
        declarations: [AppTypeDeclaration], files: [String], modules: [String: String] = [:],
        syntaxErrors: [SwiftSyntaxError] = [],
        chosenFiles: Set<String> = []
    ) {
        all = declarations
        self.files = files
        self.modules = modules
        self.syntaxErrors = syntaxErrors
        self.chosenFiles = chosenFiles
        var byName: [String: AppTypeDeclaration] = [:]
        for declaration in declarations {
            if let kept = byName[declaration.name] {
                let keptChosen = chosenFiles.contains(kept.declaration.location.file)
                if !keptChosen, chosenFiles.contains(declaration.declaration.location.file) {
                    byName[declaration.name] = declaration
                }
            } else {
                byName[declaration.name] = declaration
            }
        }
        self.declarations = byName
    }

    /// The same sources with `choices` preferred where a name is declared in several files:
    /// each is `Module.Name`, `Name` or a path (a file or a folder, as read or a suffix of it).
    /// Throws when a choice matches nothing.
    public func choosing(_ choices: [String]) throws(AppSourceError) -> AppTypes {
        var chosen = chosenFiles
        for choice in choices {
            let files = self.files(matching: choice)
            guard !files.isEmpty else {
                throw .unknownChoice(
                    choice, candidates: ambiguities.flatMap { $0.declarations.map { choiceName(for: $0) } })
            }
            chosen.formUnion(files)
        }
        return AppTypes(
            declarations: all, files: self.files, modules: modules, syntaxErrors: syntaxErrors, chosenFiles: chosen)
    }

    /// The sources with the file of `declaration` preferred: what `scaffold` writes each duplicate with.
    public func choosing(fileOf declaration: SwiftDeclaration) -> AppTypes {
        AppTypes(
            declarations: all, files: files, modules: modules, syntaxErrors: syntaxErrors,
            chosenFiles: chosenFiles.union([declaration.location.file]))
    }

    private func files(matching choice: String) -> Set<String> {
        let parts = choice.split(separator: ".").map(String.init)
        var found: Set<String> = []
        for declaration in all {
            let file = declaration.declaration.location.file
            let simple = declaration.name.split(separator: ".").last.map(String.init) ?? declaration.name
            let module = modules[file]
            if choice == declaration.name
                || (parts.count >= 2 && module == parts[0]
                    && [simple, declaration.name].contains(parts.dropFirst().joined(separator: ".")))
            {
                found.insert(file)
            }
        }
        if !found.isEmpty {
            // `Name` alone chooses only when it is not itself the ambiguous one.
            if parts.count == 1, found.count > 1 { return [] }
            return found
        }
        let path = choice.hasSuffix("/") ? String(choice.dropLast()) : choice
        for file in files
        where file == path || file.hasSuffix("/" + path) || file.hasPrefix(path + "/")
            || file.contains("/" + path + "/")
        {
            found.insert(file)
        }
        return found
    }

    /// How a user names `declaration` with `--app-type`: `Module.Name` when that names it alone,
    /// else its file's path.
    public func choiceName(for declaration: AppTypeDeclaration) -> String {
        let file = declaration.declaration.location.file
        guard let module = modules[file] else { return file }
        let shared = all.contains { other in
            other.name == declaration.name && other.declaration.location.file != file
                && modules[other.declaration.location.file] == module
        }
        return shared ? file : "\(module).\(declaration.name)"
    }

    /// A name declared in more than one file, that no choice settled.
    public struct Ambiguity: Sendable {
        public var name: String
        /// The declarations, the one in use first.
        public var declarations: [AppTypeDeclaration]
    }

    /// Names declared in more than one file that no choice settled, among those the
    /// `ActivityAttributes` types use (an app's other types may repeat freely); a nested name is
    /// left out when its outer type is itself ambiguous. `ActivityAttributes` types are also ambiguous
    /// when two share the unqualified name a push sends.
    public var ambiguities: [Ambiguity] {
        var byName: [String: [AppTypeDeclaration]] = [:]
        for declaration in all { byName[declaration.name, default: []].append(declaration) }
        for attributes in all {
            guard case .structure(let type) = attributes, type.isActivityAttributes else { continue }
            let simple = Self.simpleName(type.name)
            if simple != type.name { byName[simple, default: []].append(attributes) }
        }
        let used = namesUsedByActivities()
        var found: [Ambiguity] = []
        for (name, declarations) in byName where used.contains(name) {
            let files = Set(declarations.map(\.declaration.location.file))
            guard files.count > 1 else { continue }
            if !files.isDisjoint(with: chosenFiles), files.intersection(chosenFiles).count == 1 { continue }
            let outer = name.split(separator: ".").dropLast()
            if !outer.isEmpty,
                (1...outer.count).contains(where: {
                    Set((byName[outer.prefix($0).joined(separator: ".")] ?? []).map(\.declaration.location.file)).count
                        > 1
                })
            {
                continue
            }
            let inUse = declarations.first { $0.declaration == self.declarations[name]?.declaration }
            let ordered = (inUse.map { [$0] } ?? []) + declarations.filter { $0.declaration != inUse?.declaration }
            found.append(Ambiguity(name: name, declarations: ordered))
        }
        return found.sorted { $0.name < $1.name }
    }

    /// The qualified names the `ActivityAttributes` types reach (themselves, their unqualified
    /// names, their ContentState and every type a property, an associated value or an alias
    /// names), in any of the declarations of a name.
    func namesUsedByActivities() -> Set<String> {
        var used: Set<String> = []
        var queue: [AppTypeDeclaration] = []
        for declaration in all {
            guard case .structure(let type) = declaration, type.isActivityAttributes else { continue }
            used.insert(Self.simpleName(type.name))
            queue.append(declaration)
        }
        func reach(_ reference: SwiftTypeReference, from scope: String) {
            switch reference {
            case .optional(let inner), .array(let inner), .range(let inner, _): reach(inner, from: scope)
            case .dictionary(let key, let value):
                reach(key, from: scope)
                reach(value, from: scope)
            case .named(let name):
                if let found = resolve(name, from: scope) {
                    queue += all.filter { $0.name == found.name }
                }
            case .generic(let name, let arguments):
                reach(.named(name), from: scope)
                for argument in arguments { reach(argument, from: scope) }
            default: break
            }
        }
        var visited: Set<SwiftDeclaration> = []
        while let next = queue.popLast() {
            guard visited.insert(next.declaration).inserted else { continue }
            used.insert(next.name)
            let scope = next.name
            switch next {
            case .structure(let type):
                for property in type.properties { reach(property.type, from: scope) }
                if type.isActivityAttributes, let state = contentState(of: type) {
                    queue += all.filter { $0.name == state.name }
                }
            case .enumeration(let type):
                for enumCase in type.cases { for value in enumCase.associatedValues { reach(value.type, from: scope) } }
            case .alias(_, let target, _):
                reach(target, from: scope.split(separator: ".").dropLast().joined(separator: "."))
            }
        }
        return used
    }

    /// The ambiguity an `ActivityAttributes` type is part of, if any.
    public func ambiguity(of attributes: AppStruct) -> Ambiguity? {
        ambiguities.first { $0.name == attributes.name || $0.name == Self.simpleName(attributes.name) }
    }

    /// The types conforming to `ActivityAttributes`, in file and line order: the ones in use.
    public var activityAttributes: [AppStruct] {
        declarations.values.compactMap { declaration -> AppStruct? in
            if case .structure(let type) = declaration, type.isActivityAttributes { return type }
            return nil
        }
        .sorted {
            ($0.declaration.location.file, $0.declaration.location.line) < (
                $1.declaration.location.file, $1.declaration.location.line
            )
        }
    }

    /// The `ActivityAttributes` type a push's `attributes-type` names: its unqualified name, as
    /// ActivityKit sends it. A type from a chosen file wins over one with the same name elsewhere.
    public func attributes(named name: String) -> AppStruct? {
        let matching = activityAttributes.filter { $0.name == name || Self.simpleName($0.name) == name }
        return matching.first { chosenFiles.contains($0.declaration.location.file) } ?? matching.first
    }

    /// The `ContentState` declaration of an `ActivityAttributes` type: nested in it, or declared
    /// in an extension of a protocol it conforms to.
    public func contentState(of attributes: AppStruct) -> AppTypeDeclaration? {
        if let found = resolve("ContentState", from: attributes.name) { return found }
        for scope in attributes.protocols {
            if let found = declarations[scope + ".ContentState"] { return found }
        }
        return nil
    }

    /// The generic struct `name` with its parameters replaced by `arguments`, each resolved from
    /// `scope` (where the use is written); nil when `name` is not a generic struct of as many
    /// parameters.
    public func specialized(
        _ name: String, _ arguments: [SwiftTypeReference], from scope: String
    ) -> AppTypeDeclaration? {
        guard case .structure(var type)? = resolve(name, from: scope), type.genericParameters.count == arguments.count
        else { return nil }
        // An argument naming a type of the use's scope keeps that meaning inside the struct.
        let qualified = arguments.map { argument -> SwiftTypeReference in
            if case .named(let inner) = argument, let found = resolve(inner, from: scope) { return .named(found.name) }
            return argument
        }
        let substitutions = Dictionary(uniqueKeysWithValues: zip(type.genericParameters, qualified))
        type.properties = type.properties.map { property in
            var specialized = property
            specialized.type = property.type.substituting(substitutions)
            return specialized
        }
        type.genericParameters = []
        return .structure(type)
    }

    /// The declaration a reference names, looked up from the scope `scope` (a qualified type
    /// name) outwards; type aliases are followed. Nil when the app does not declare it.
    public func resolve(_ name: String, from scope: String) -> AppTypeDeclaration? {
        var seen: Set<String> = []
        var current = name
        var currentScope = scope
        while true {
            guard let found = lookup(current, from: currentScope), seen.insert(found.name).inserted else { return nil }
            guard case .alias(_, let target, _) = found else { return found }
            guard case .named(let next) = target else { return found }
            currentScope = found.name.split(separator: ".").dropLast().joined(separator: ".")
            current = next
        }
    }

    private func lookup(_ name: String, from scope: String) -> AppTypeDeclaration? {
        var parts = scope.split(separator: ".").map(String.init)
        while true {
            let candidate = (parts + [name]).joined(separator: ".")
            if let found = declarations[candidate] { return found }
            if parts.isEmpty { return nil }
            parts.removeLast()
        }
    }

    static func simpleName(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }
}

/// A syntax error in the app's source, located, with the parser's message.
public struct SwiftSyntaxError: Sendable, Hashable, CustomStringConvertible {
    public var location: Liveline.SourceLocation
    public var message: String

    public init(location: Liveline.SourceLocation, message: String) {
        self.location = location
        self.message = message
    }

    /// `Widget/Attributes.swift:12:5: expected '}' to end struct`.
    public var description: String { "\(location.file):\(location.line):\(location.column): \(message)" }
}
