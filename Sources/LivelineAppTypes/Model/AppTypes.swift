/// The app's `ActivityAttributes` types and every type they use, read from its Swift source.
///
/// Plain values: ``AppSourceReader`` builds it, ``DecodeChecker`` walks values against it.
/// Names are qualified with their outer types (`MatchAttributes.ContentState.Phase`), and a
/// reference is resolved the way Swift resolves it, from the innermost scope outwards.
public struct AppTypes: Sendable {
    /// Every declaration by qualified name.
    public private(set) var declarations: [String: AppTypeDeclaration]
    /// The files read, as named.
    public var files: [String]

    public init(declarations: [AppTypeDeclaration], files: [String]) {
        var byName: [String: AppTypeDeclaration] = [:]
        for declaration in declarations where byName[declaration.name] == nil {
            byName[declaration.name] = declaration
        }
        self.declarations = byName
        self.files = files
    }

    /// The types conforming to `ActivityAttributes`, in file and line order.
    public var activityAttributes: [AppStruct] {
        declarations.values.compactMap { declaration -> AppStruct? in
            if case .structure(let type) = declaration, type.isActivityAttributes { return type }
            return nil
        }
        .sorted { ($0.declaration.location.file, $0.declaration.location.line) < ($1.declaration.location.file, $1.declaration.location.line) }
    }

    /// The `ActivityAttributes` type a push's `attributes-type` names: its unqualified name, as
    /// ActivityKit sends it.
    public func attributes(named name: String) -> AppStruct? {
        activityAttributes.first { $0.name == name || $0.name.split(separator: ".").last.map(String.init) == name }
    }

    /// The nested `ContentState` of an `ActivityAttributes` type.
    public func contentStateType(of attributes: AppStruct) -> SwiftTypeReference {
        .named(attributes.name + ".ContentState")
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
}
