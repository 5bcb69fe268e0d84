import Foundation

/// A starter scenario for one `ActivityAttributes` type: every field the app decodes present,
/// with a value of its type and a comment naming the Swift type, for a person to fill in.
///
/// The file it writes loads and passes `validate --app` as it is (tested), so the story can be
/// grown from something that already decodes.
public struct ScenarioScaffold: Sendable {
    public let types: AppTypes

    public init(types: AppTypes) { self.types = types }

    /// `MatchAttributes` → `match-attributes`, `PETLiveActivityAttributes` →
    /// `pet-live-activity-attributes`: the file and activity name. A word starts at an upper-case
    /// letter after a lower-case one or a digit, or at the last capital of an acronym.
    public static func fileStem(for attributes: AppStruct) -> String {
        fileStem(named: simpleName(attributes.name))
    }

    /// A Swift name in lower case with hyphens between its words.
    public static func fileStem(named name: String) -> String {
        let simple = Array(name)
        var out = ""
        for (index, character) in simple.enumerated() {
            guard character.isLetter || character.isNumber else {
                if !out.isEmpty, !out.hasSuffix("-") { out.append("-") }
                continue
            }
            if character.isUppercase, !out.isEmpty, !out.hasSuffix("-"), index > 0 {
                let previous = simple[index - 1]
                let next = index + 1 < simple.count ? simple[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    out.append("-")
                }
            }
            out += character.lowercased()
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "activity" : out
    }

    /// The scenario's YAML text; `choice` is the `--app-type` that selects `attributes` where its
    /// name is declared in several files, for the command the file suggests.
    public func yaml(for attributes: AppStruct, choice: String? = nil) -> String {
        let simple = attributes.name.split(separator: ".").last.map(String.init) ?? attributes.name
        let stem = Self.fileStem(for: attributes)
        var lines = [
            "# yaml-language-server: $schema=liveline.schema.json",
            "#",
            "# A starter scenario for \(simple) (\(attributes.declaration.description.split(separator: ":").prefix(2).joined(separator: ":"))),",
            "# written by `liveline scaffold`. Every field the app decodes is here with a value of its",
            "# type; replace the values, add beats, and check it with:",
            "#   liveline validate --app <your app's sources>" + (choice.map { " --app-type \($0)" } ?? "")
                + " \(stem).yaml",
            "",
            "liveline: 1",
            "name: \(simple) starter",
            "bundle-id: com.example.app  # your app's bundle id",
            "",
            "activities:",
            "  - name: \(stem)",
            "    attributes-type: \(simple)",
        ]
        var attributeLines: [String] = []
        fields(of: .structure(attributes), indent: 6, into: &attributeLines)
        lines += Self.mapping("attributes", attributeLines)
        var stateLines: [String] = []
        if let state = types.contentState(of: attributes) {
            fields(of: state, indent: 6, into: &stateLines)
        } else {
            stateLines.append("      # no ContentState found in the sources read: not checked")
        }
        lines += Self.mapping("content-state", stateLines)
        lines += [
            "    beats:",
            "      # One beat per change of the story; `set:` patches the content-state.",
            "      - id: finish",
            "        at: 30m",
            "        priority: high",
            "        end: { dismissal: 10m }",
            "",
        ]
        return lines.joined(separator: "\n")
    }

    private func fields(of declaration: AppTypeDeclaration, indent: Int, into lines: inout [String], depth: Int = 0) {
        guard case .structure(let type) = declaration else { return }
        let pad = String(repeating: " ", count: indent)
        if case .handWritten(let decoder) = type.decoding {
            handWrittenFields(of: type, decoder: decoder, pad: pad, into: &lines)
            return
        }
        for (key, property) in type.decodedFields {
            let name = Self.yamlKey(key)
            if depth < 8, let nested = nestedStruct(property.type, scope: type.name) {
                lines.append(pad + name + ":" + comment(property, pad.count + name.count + 1, scope: type.name))
                var inner: [String] = []
                fields(of: nested, indent: indent + 2, into: &inner, depth: depth + 1)
                if Self.onlyComments(inner) {
                    lines[lines.count - 1] =
                        pad + name + ": {}" + comment(property, pad.count + name.count + 4, scope: type.name)
                }
                lines += inner
                continue
            }
            let value = sample(property.type, scope: type.name)
            let text = pad + name + ": " + value
            lines.append(text + comment(property, text.count, scope: type.name))
        }
    }

    /// A hand-written `init(from:)`: the keys its `CodingKeys` declares, each with a value of the
    /// property of the same name when there is one, and a comment saying none of it is checked.
    private func handWrittenFields(
        of type: AppStruct, decoder: SwiftDeclaration, pad: String, into lines: inout [String]
    ) {
        let at = decoder.description.split(separator: ":").prefix(2).joined(separator: ":")
        lines.append(
            pad
                + "# \(Self.simpleName(type.name)) decodes itself (init(from:) at \(at)): not checked; these are its CodingKeys"
        )
        guard let codingKeys = type.codingKeys else { return }
        let ordered = codingKeys.keys.sorted { a, b in
            let ia = type.properties.firstIndex { $0.name == a.key } ?? Int.max
            let ib = type.properties.firstIndex { $0.name == b.key } ?? Int.max
            return (ia, a.value) < (ib, b.value)
        }
        for (caseName, key) in ordered {
            let property = type.properties.first { $0.name == caseName }
            let text = pad + Self.yamlKey(key) + ": " + (property.map { sample($0.type, scope: type.name) } ?? "\"\"")
            let note = property.map { $0.type.description } ?? "type not declared by a property of this name"
            lines.append(text + String(repeating: " ", count: max(2, 34 - text.count)) + "# " + note)
        }
    }

    private func comment(_ property: AppProperty, _ column: Int, scope: String) -> String {
        var note = property.type.description
        if case .named(let name) = property.type.unwrapped {
            switch types.resolve(name, from: scope) {
            case .enumeration(let type)? where !type.cases.isEmpty:
                let names = type.rawType == .none ? type.cases.map { type.key(for: $0) } : type.cases.map(\.rawValue)
                note += ": " + names.prefix(6).joined(separator: ", ") + (names.count > 6 ? ", …" : "")
                if type.rawType == .none { note += " (no raw values: written { case: {} })" }
            case nil:
                note += " (not in the sources read: not checked)"
            default:
                break
            }
        } else if case .unsupported = property.type.unwrapped {
            note += " (not checked)"
        }
        if property.type.isOptional { note += " (may be null)" }
        return String(repeating: " ", count: max(2, 34 - column)) + "# " + note
    }

    private func nestedStruct(_ type: SwiftTypeReference, scope: String) -> AppTypeDeclaration? {
        let found: AppTypeDeclaration?
        switch type {
        case .named(let name): found = types.resolve(name, from: scope)
        case .generic(let name, let arguments): found = types.specialized(name, arguments, from: scope)
        default: found = nil
        }
        guard let found else { return nil }
        if case .structure = found { return found }
        return nil
    }

    /// A value of the type, as YAML the scenario format reads.
    private func sample(_ type: SwiftTypeReference, scope: String, depth: Int = 0) -> String {
        switch type {
        case .bool: return "false"
        case .integer: return "0"
        case .floatingPoint, .decimal: return "0.0"
        case .string: return "\"\""
        case .date: return "!date +30m"
        case .url: return "\"https://example.com\""
        case .uuid: return "\"00000000-0000-0000-0000-000000000000\""
        case .data: return "\"\""
        case .optional: return "null"
        case .array: return "[]"
        case .dictionary: return "{}"
        case .range(let bound, _):
            if case .date = bound { return "!daterange [+0m, +30m]" }
            return "[" + sample(bound, scope: scope) + ", " + sample(bound, scope: scope) + "]"
        case .unkeyed(_, let parts):
            return "[" + parts.map { sample($0, scope: scope) }.joined(separator: ", ") + "]"
        case .named(let name):
            // Not in the sources: any value is unchecked; `{}` is one a person will notice.
            guard let found = types.resolve(name, from: scope) else { return "{}" }
            switch found {
            case .enumeration(let type):
                guard let first = type.cases.first, case .synthesized = type.decoding else { return "{}" }
                switch type.rawType {
                case .string: return Self.quoted(first.rawValue)
                case .integer, .floatingPoint: return first.rawValue
                case .none:
                    return "{ " + Self.yamlKey(type.key(for: first)) + ": "
                        + flow(first.associatedValues, scope: type.name, depth: depth + 1) + " }"
                }
            case .alias(let aliasName, let target, _):
                return sample(
                    target, scope: aliasName.split(separator: ".").dropLast().joined(separator: "."), depth: depth)
            case .structure(let type):
                guard case .synthesized = type.decoding else { return "{}" }
                return flow(
                    type.decodedFields.map { field in
                        var property = field.property
                        property.name = field.key
                        return property
                    }, scope: type.name, depth: depth + 1)
            }
        case .generic(let name, let arguments):
            guard case .structure(let type)? = types.specialized(name, arguments, from: scope),
                case .synthesized = type.decoding
            else { return "{}" }
            return flow(
                type.decodedFields.map { field in
                    var property = field.property
                    property.name = field.key
                    return property
                }, scope: type.name, depth: depth + 1)
        case .unsupported: return "{}"
        }
    }

    /// Properties as a YAML flow mapping, `{ a: 0, b: "" }`, optionals left out.
    private func flow(_ properties: [AppProperty], scope: String, depth: Int) -> String {
        let required = properties.filter { !$0.type.isOptional }
        guard !required.isEmpty, depth < 8 else { return "{}" }
        return "{ "
            + required.map { Self.yamlKey($0.name) + ": " + sample($0.type, scope: scope, depth: depth) }.joined(
                separator: ", ") + " }"
    }

    /// `key:` and its lines, or `key: {}` when they are only comments (an empty mapping, not null).
    static func mapping(_ key: String, _ lines: [String]) -> [String] {
        (onlyComments(lines) ? ["    \(key): {}"] : ["    \(key):"]) + lines
    }

    static func onlyComments(_ lines: [String]) -> Bool {
        lines.allSatisfy { $0.drop { $0 == " " }.hasPrefix("#") }
    }

    public static func simpleName(_ name: String) -> String { name.split(separator: ".").last.map(String.init) ?? name }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func yamlKey(_ key: String) -> String {
        key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } && !key.isEmpty ? key : quoted(key)
    }
}

extension SwiftTypeReference {
    /// The type inside an `Optional`, or the type itself.
    var unwrapped: SwiftTypeReference {
        if case .optional(let wrapped) = self { return wrapped.unwrapped }
        return self
    }
}
