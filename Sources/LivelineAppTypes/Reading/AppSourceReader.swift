import Liveline
import SwiftParser
import SwiftParserDiagnostics
import SwiftSyntax

/// Reads the app's Swift source into ``AppTypes``: every struct, class, enum and type alias,
/// at any nesting, and the facts synthesized decoding depends on.
///
/// The reader parses; it never compiles or runs the app's code. It records what is declared
/// (stored properties, `let` and initial values, `CodingKeys`, raw values, a hand-written
/// `init(from:)`, conformance to `ActivityAttributes` in a declaration or an extension) and
/// leaves the decoding rules to ``DecodeChecker``.
public struct AppSourceReader {
    private var collected: [Collected] = []
    private var conformances: [String: Set<String>] = [:]
    private var handWritten: [String: SwiftDeclaration] = [:]
    /// Protocols by qualified name, with the protocols they refine.
    private var protocols: [String: Set<String>] = [:]
    private var syntaxErrors: [SwiftSyntaxError] = []
    private var files: [String] = []

    public init() {}

    /// Reads one file's text; `file` is the name used in locations. Syntax errors are kept,
    /// located, with the parser's message (``AppTypes/syntaxErrors``); what parses is read.
    public mutating func read(source: String, file: String) {
        let tree = Parser.parse(source: source)
        let converter = SourceLocationConverter(fileName: file, tree: tree)
        files.append(file)
        if tree.hasError {
            for diagnostic in ParseDiagnosticsGenerator.diagnostics(for: tree)
            where diagnostic.diagMessage.severity == .error {
                let at = diagnostic.location(converter: converter)
                syntaxErrors.append(
                    SwiftSyntaxError(
                        location: Liveline.SourceLocation(file: file, line: at.line, column: at.column),
                        message: diagnostic.message
                    ))
            }
        }
        var walker = Walker(converter: converter, file: file)
        walker.walk(tree.statements.map(\.item), scope: [])
        collected += walker.collected
        for (name, protocols) in walker.conformances { conformances[name, default: []].formUnion(protocols) }
        for (name, refined) in walker.protocols { protocols[name, default: []].formUnion(refined) }
        handWritten.merge(walker.handWritten) { first, _ in first }
    }

    /// The types read so far, with conformances and decoders from extensions applied.
    /// `modules` names each file's module, for `--app-type Module.Name`.
    public func types(modules: [String: String] = [:]) -> AppTypes {
        var declarations: [AppTypeDeclaration] = []
        var codingKeys: [String: CodingKeys] = [:]
        for item in collected {
            guard case .enumeration(let type, let inherited) = item, inherited.contains("CodingKey"),
                type.name.hasSuffix(".CodingKeys")
            else { continue }
            let owner = String(type.name.dropLast(".CodingKeys".count))
            if codingKeys[owner] != nil { continue }
            let keys = Dictionary(type.cases.map { ($0.name, $0.rawValue) }, uniquingKeysWith: { first, _ in first })
            codingKeys[owner] = CodingKeys(keys: keys, declaration: type.declaration)
        }
        let refines = attributesProtocols()
        for item in collected {
            switch item {
            case .structure(var type, let inherited):
                let all = inherited.union(conformances[type.name] ?? [])
                type.protocols = protocolChain(all)
                type.isActivityAttributes = !all.isDisjoint(with: refines)
                type.codingKeys = codingKeys[type.name]
                if case .synthesized = type.decoding, let decoder = handWritten[type.name] {
                    type.decoding = .handWritten(decoder)
                }
                declarations.append(.structure(type))
            case .enumeration(var type, _):
                if case .synthesized = type.decoding, let decoder = handWritten[type.name] {
                    type.decoding = .handWritten(decoder)
                }
                if type.rawType == .none { type.codingKeys = codingKeys[type.name] }
                declarations.append(.enumeration(type))
            case .alias(let name, let target, let declaration):
                declarations.append(.alias(name: name, target: target, declaration: declaration))
            }
        }
        return AppTypes(declarations: declarations, files: files, modules: modules, syntaxErrors: syntaxErrors)
    }

    /// `ActivityAttributes` and every protocol or alias that refines it, in any file:
    /// `protocol PushAttributes: ActivityAttributes`, `typealias LiveAttributes = ActivityAttributes & Sendable`,
    /// and classes that inherit a conformance.
    private func attributesProtocols() -> Set<String> {
        var found: Set<String> = ["ActivityAttributes"]
        var aliases: [String: Set<String>] = [:]
        var classes: [String: Set<String>] = [:]
        for item in collected {
            switch item {
            case .alias(let name, let target, _):
                aliases[name] = Set(
                    target.description.split(separator: "&").map { AppSourceReader.simpleName(String($0).trimmed(" ")) }
                )
            case .structure(let type, let inherited) where type.declaration.text.hasPrefix("class "):
                classes[type.name] = inherited.union(conformances[type.name] ?? [])
            default:
                break
            }
        }
        while true {
            let before = found.count
            for (name, refined) in protocols where !refined.isDisjoint(with: found) { found.insert(name) }
            for (name, targets) in aliases where !targets.isDisjoint(with: found) { found.insert(name) }
            for (name, inherited) in classes where !inherited.isDisjoint(with: found) { found.insert(name) }
            if found.count == before { return found }
        }
    }

    /// The protocols among `names` and those they refine, nearest first.
    private func protocolChain(_ names: Set<String>) -> [String] {
        var chain: [String] = []
        var queue = names.sorted()
        while !queue.isEmpty {
            let name = queue.removeFirst()
            guard protocols[name] != nil || name == "ActivityAttributes", !chain.contains(name) else { continue }
            chain.append(name)
            queue += (protocols[name] ?? []).sorted()
        }
        return chain
    }

    static func simpleName(_ text: String) -> String { Walker.simpleName(text) }

    enum Collected {
        case structure(AppStruct, inherited: Set<String>)
        case enumeration(AppEnum, inherited: Set<String>)
        case alias(String, SwiftTypeReference, SwiftDeclaration)
    }
}

/// One file's walk. Scopes are the outer type names, so nested types get qualified names.
private struct Walker {
    let converter: SourceLocationConverter
    let file: String
    var collected: [AppSourceReader.Collected] = []
    var conformances: [String: Set<String>] = [:]
    var handWritten: [String: SwiftDeclaration] = [:]
    var protocols: [String: Set<String>] = [:]

    init(converter: SourceLocationConverter, file: String) {
        self.converter = converter
        self.file = file
    }

    mutating func walk(_ items: [CodeBlockItemSyntax.Item], scope: [String]) {
        for item in items {
            if case .decl(let decl) = item { declaration(decl, scope: scope) }
        }
    }

    private mutating func declaration(_ decl: DeclSyntax, scope: [String]) {
        if let node = decl.as(StructDeclSyntax.self) {
            typeWithMembers(
                node.name.text, node.inheritanceClause, node.memberBlock, node: Syntax(node), keyword: "struct",
                scope: scope,
                generics: node.genericParameterClause?.parameters.map(\.name.text) ?? []
            )
        } else if let node = decl.as(ClassDeclSyntax.self) {
            typeWithMembers(
                node.name.text, node.inheritanceClause, node.memberBlock, node: Syntax(node), keyword: "class",
                scope: scope,
                generics: node.genericParameterClause?.parameters.map(\.name.text) ?? []
            )
        } else if let node = decl.as(EnumDeclSyntax.self) {
            enumeration(node, scope: scope)
        } else if let node = decl.as(ExtensionDeclSyntax.self) {
            let extended = Self.simpleName(node.extendedType.trimmedDescription)
            let qualified = (scope + [extended]).joined(separator: ".")
            let inherited = Self.inherited(node.inheritanceClause)
            if !inherited.isEmpty { conformances[qualified, default: []].formUnion(inherited) }
            let members = Self.members(node.memberBlock)
            if let decoder = members.lazy.compactMap({ $0.as(InitializerDeclSyntax.self) }).first(
                where: Self.isDecoderInit)
            {
                handWritten[qualified] = declaration(of: Syntax(decoder), text: "init(from decoder: Decoder)")
            }
            for member in members { declaration(member, scope: scope + [extended]) }
        } else if let node = decl.as(ProtocolDeclSyntax.self) {
            protocols[(scope + [node.name.text]).joined(separator: "."), default: []].formUnion(
                Self.inherited(node.inheritanceClause))
        } else if let node = decl.as(TypeAliasDeclSyntax.self) {
            let name = (scope + [node.name.text]).joined(separator: ".")
            collected.append(
                .alias(
                    name, TypeReader.reference(node.initializer.value),
                    declaration(of: Syntax(node), text: node.trimmedDescription)))
        } else if let node = decl.as(IfConfigDeclSyntax.self) {
            // `#if os(iOS)` around declarations: read every branch, as each may be the one built.
            for clause in node.clauses {
                if case .decls(let members) = clause.elements {
                    for member in members { declaration(member.decl, scope: scope) }
                } else if case .statements(let items) = clause.elements {
                    walk(items.map(\.item), scope: scope)
                }
            }
        }
    }

    private mutating func typeWithMembers(
        _ name: String, _ inheritance: InheritanceClauseSyntax?, _ members: MemberBlockSyntax, node: Syntax,
        keyword: String,
        scope: [String], generics: [String]
    ) {
        let qualified = (scope + [name]).joined(separator: ".")
        let inherited = Self.inherited(inheritance)
        var properties: [AppProperty] = []
        var decoding = Decoding.synthesized
        var seen: Set<String> = []
        for member in Self.members(members) {
            if let variable = member.as(VariableDeclSyntax.self) {
                // `#if` branches may declare a property twice; the first is kept.
                properties += storedProperties(variable).filter { seen.insert($0.name).inserted }
            } else if let initializer = member.as(InitializerDeclSyntax.self), Self.isDecoderInit(initializer) {
                decoding = .handWritten(declaration(of: Syntax(initializer), text: "init(from decoder: Decoder)"))
            } else {
                declaration(member, scope: scope + [name])
            }
        }
        let header = "\(keyword) \(name)" + (inheritance.map { $0.trimmedDescription } ?? "")
        var type = AppStruct(
            name: qualified, declaration: declaration(of: node, text: header), properties: properties,
            decoding: decoding,
            codingKeys: nil, isActivityAttributes: false
        )
        type.genericParameters = generics
        collected.append(.structure(type, inherited: inherited))
    }

    private mutating func enumeration(_ node: EnumDeclSyntax, scope: [String]) {
        let name = node.name.text
        let qualified = (scope + [name]).joined(separator: ".")
        let inherited = Self.inherited(node.inheritanceClause)
        let rawType: AppEnum.RawType
        if inherited.contains(where: { ["String", "Character", "Substring"].contains($0) }) {
            rawType = .string
        } else if inherited.contains(where: { SwiftTypeReference.IntegerKind(rawValue: $0) != nil }) {
            rawType = .integer
        } else if inherited.contains(where: { ["Double", "Float", "CGFloat"].contains($0) }) {
            rawType = .floatingPoint
        } else {
            rawType = .none
        }
        var cases: [EnumCase] = []
        var decoding = Decoding.synthesized
        var nextInteger = 0
        for member in Self.members(node.memberBlock) {
            if let caseDecl = member.as(EnumCaseDeclSyntax.self) {
                for element in caseDecl.elements
                where !cases.contains(where: { $0.name == element.name.text.trimmingBackticks }) {
                    let caseName = element.name.text.trimmingBackticks
                    var raw = caseName
                    switch rawType {
                    case .string:
                        if let value = element.rawValue?.value, let text = Self.stringLiteral(value) { raw = text }
                    case .integer:
                        if let value = element.rawValue?.value, let number = Self.integerLiteral(value) {
                            nextInteger = number
                        }
                        raw = String(nextInteger)
                        nextInteger += 1
                    case .floatingPoint:
                        raw = element.rawValue?.value.trimmedDescription ?? String(nextInteger)
                        nextInteger += 1
                    case .none:
                        break
                    }
                    cases.append(EnumCase(name: caseName, rawValue: raw, associatedValues: associatedValues(element)))
                }
            } else if let initializer = member.as(InitializerDeclSyntax.self), Self.isDecoderInit(initializer) {
                decoding = .handWritten(declaration(of: Syntax(initializer), text: "init(from decoder: Decoder)"))
            } else {
                declaration(member, scope: scope + [name])
            }
        }
        let header = "enum \(name)" + (node.inheritanceClause.map { $0.trimmedDescription } ?? "")
        let type = AppEnum(
            name: qualified, declaration: declaration(of: Syntax(node), text: header), rawType: rawType, cases: cases,
            decoding: decoding)
        collected.append(.enumeration(type, inherited: inherited))
    }

    /// A type's members, with those inside `#if` branches: every branch is read, as each may
    /// be the one built.
    static func members(_ block: MemberBlockSyntax) -> [DeclSyntax] {
        block.members.flatMap { flattened($0.decl) }
    }

    private static func flattened(_ decl: DeclSyntax) -> [DeclSyntax] {
        guard let config = decl.as(IfConfigDeclSyntax.self) else { return [decl] }
        return config.clauses.flatMap { clause -> [DeclSyntax] in
            guard case .decls(let inner) = clause.elements else { return [] }
            return inner.flatMap { flattened($0.decl) }
        }
    }

    /// A case's associated values as synthesized `Codable` keys them: by label, `_0`, `_1`
    /// for unlabelled ones.
    private func associatedValues(_ element: EnumCaseElementSyntax) -> [AppProperty] {
        guard let parameters = element.parameterClause?.parameters else { return [] }
        return parameters.enumerated().map { index, parameter in
            let label =
                parameter.firstName.map { $0.text.trimmingBackticks }.flatMap { $0 == "_" ? nil : $0 } ?? "_\(index)"
            return AppProperty(
                name: label, type: TypeReader.reference(parameter.type), isLet: true, hasInitialValue: false,
                declaration: declaration(
                    of: Syntax(parameter), text: "case " + Self.short(element.trimmedDescription, limit: 60))
            )
        }
    }

    /// The stored instance properties a `var`/`let` declares; computed and static ones are not.
    private func storedProperties(_ variable: VariableDeclSyntax) -> [AppProperty] {
        let modifiers = Set(variable.modifiers.map(\.name.text))
        if modifiers.contains("static") || modifiers.contains("class") || modifiers.contains("lazy") { return [] }
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        var properties: [AppProperty] = []
        // `var a, b: Int`: a binding without a type takes the next annotated one's.
        var laterType: TypeSyntax?
        for binding in variable.bindings.reversed() {
            guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
            if let accessors = binding.accessorBlock, !Self.isObserversOnly(accessors) { continue }
            let annotated = binding.typeAnnotation?.type
            if let annotated { laterType = annotated }
            let type: SwiftTypeReference
            if let annotated {
                type = TypeReader.reference(annotated)
            } else if let value = binding.initializer?.value {
                type = TypeReader.inferred(from: value)
            } else if let laterType {
                type = TypeReader.reference(laterType)
            } else {
                type = .unsupported("(no type)")
            }
            let name = pattern.identifier.text.trimmingBackticks
            let typeText = annotated?.trimmedDescription ?? laterType?.trimmedDescription
            var text = (isLet ? "let " : "var ") + name + (typeText.map { ": \($0)" } ?? "")
            if let value = binding.initializer?.value { text += " = " + Self.short(value.trimmedDescription) }
            properties.append(
                AppProperty(
                    name: name, type: type, isLet: isLet, hasInitialValue: binding.initializer != nil,
                    declaration: declaration(of: Syntax(binding), text: text)
                ))
        }
        return properties.reversed()
    }

    private func declaration(of node: Syntax, text: String) -> SwiftDeclaration {
        let start = node.startLocation(converter: converter, afterLeadingTrivia: true)
        return SwiftDeclaration(
            location: Liveline.SourceLocation(file: file, line: start.line, column: start.column), text: text)
    }

    private static func isObserversOnly(_ block: AccessorBlockSyntax) -> Bool {
        guard case .accessors(let accessors) = block.accessors else { return false }
        return accessors.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
    }

    /// `init(from decoder: Decoder)` (any parameter name, any `Decoder` spelling).
    static func isDecoderInit(_ initializer: InitializerDeclSyntax) -> Bool {
        let parameters = initializer.signature.parameterClause.parameters
        guard parameters.count == 1, let parameter = parameters.first else { return false }
        return parameter.firstName.text == "from" && parameter.type.trimmedDescription.contains("Decoder")
    }

    /// The names in an inheritance clause, without module prefixes: `ActivityKit.ActivityAttributes` → `ActivityAttributes`.
    static func inherited(_ clause: InheritanceClauseSyntax?) -> Set<String> {
        guard let clause else { return [] }
        var names: Set<String> = []
        for item in clause.inheritedTypes {
            for part in item.type.trimmedDescription.split(separator: "&") {
                names.insert(simpleName(String(part).trimmed(" ")))
            }
        }
        return names
    }

    static func simpleName(_ text: String) -> String {
        let unprefixed =
            text.hasPrefix("ActivityKit.") || text.hasPrefix("Swift.") || text.hasPrefix("Foundation.")
            ? String(text.drop(while: { $0 != "." }).dropFirst()) : text
        return unprefixed
    }

    static func stringLiteral(_ expression: ExprSyntax) -> String? {
        guard let literal = expression.as(StringLiteralExprSyntax.self) else { return nil }
        var text = ""
        for segment in literal.segments {
            guard let piece = segment.as(StringSegmentSyntax.self) else { return nil }
            text += piece.content.text
        }
        return text
    }

    static func integerLiteral(_ expression: ExprSyntax) -> Int? {
        if let literal = expression.as(IntegerLiteralExprSyntax.self) {
            return Int(literal.literal.text.replacingUnderscores)
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
            let inner = integerLiteral(prefix.expression)
        {
            return -inner
        }
        return nil
    }

    static func short(_ text: String, limit: Int = 40) -> String {
        let line = text.split(separator: "\n").first.map(String.init) ?? text
        return line.count > limit ? String(line.prefix(limit - 3)) + "…" : line
    }
}

extension String {
    var trimmingBackticks: String { filter { $0 != "`" } }
    var replacingUnderscores: String { filter { $0 != "_" } }

    /// The text without `character` at either end.
    func trimmed(_ character: Character) -> String {
        var text = Substring(self)
        while text.first == character { text = text.dropFirst() }
        while text.last == character { text = text.dropLast() }
        return String(text)
    }
}
