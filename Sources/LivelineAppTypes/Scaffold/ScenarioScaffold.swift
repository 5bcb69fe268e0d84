import Foundation

/// A starter scenario for one `ActivityAttributes` type: every field the app decodes present,
/// with a value of its type and a comment naming the Swift type, for a person to fill in.
///
/// The file it writes loads and passes `validate --app` as it is (tested), so the story can be
/// grown from something that already decodes.
public struct ScenarioScaffold: Sendable {
    public let types: AppTypes

    public init(types: AppTypes) { self.types = types }

    /// `MatchAttributes` → `match-attributes`: the file and activity name.
    public static func fileStem(for attributes: AppStruct) -> String {
        let simple = attributes.name.split(separator: ".").last.map(String.init) ?? attributes.name
        var out = ""
        for character in simple {
            if character.isUppercase, !out.isEmpty, out.last != "-" { out.append("-") }
            if character.isLetter || character.isNumber { out += character.lowercased() } else if !out.hasSuffix("-") { out.append("-") }
        }
        return out.isEmpty ? "activity" : out
    }

    /// The scenario's YAML text.
    public func yaml(for attributes: AppStruct) -> String {
        let simple = attributes.name.split(separator: ".").last.map(String.init) ?? attributes.name
        let stem = Self.fileStem(for: attributes)
        var lines = [
            "# yaml-language-server: $schema=liveline.schema.json",
            "#",
            "# A starter scenario for \(simple) (\(attributes.declaration.description.split(separator: ":").prefix(2).joined(separator: ":"))),",
            "# written by `liveline scaffold`. Every field the app decodes is here with a value of its",
            "# type; replace the values, add beats, and check it with:",
            "#   liveline validate --app <your app's sources> \(stem).yaml",
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
        lines.append(attributeLines.isEmpty ? "    attributes: {}" : "    attributes:")
        lines += attributeLines
        var stateLines: [String] = []
        if let state = types.resolve("ContentState", from: attributes.name) {
            fields(of: state, indent: 6, into: &stateLines)
        }
        lines.append(stateLines.isEmpty ? "    content-state: {}" : "    content-state:")
        lines += stateLines
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
        guard case .structure(let type) = declaration, case .synthesized = type.decoding else { return }
        let pad = String(repeating: " ", count: indent)
        for (key, property) in type.decodedFields {
            let name = Self.yamlKey(key)
            if depth < 8, let nested = nestedStruct(property.type, scope: type.name) {
                lines.append(pad + name + ":" + comment(property, pad.count + name.count + 1, scope: type.name))
                var inner: [String] = []
                fields(of: nested, indent: indent + 2, into: &inner, depth: depth + 1)
                if inner.isEmpty { lines[lines.count - 1] = pad + name + ": {}" + comment(property, pad.count + name.count + 4, scope: type.name) } else { lines += inner }
                continue
            }
            let value = sample(property.type, scope: type.name)
            let text = pad + name + ": " + value
            lines.append(text + comment(property, text.count, scope: type.name))
        }
    }

    private func comment(_ property: AppProperty, _ column: Int, scope: String) -> String {
        var note = property.type.description
        if case .named(let name) = property.type.unwrapped, let found = types.resolve(name, from: scope), case .enumeration(let type) = found,
           !type.cases.isEmpty {
            note += ": " + type.cases.prefix(6).map(\.rawValue).joined(separator: ", ") + (type.cases.count > 6 ? ", …" : "")
        }
        if property.type.isOptional { note += " (may be null)" }
        return String(repeating: " ", count: max(2, 34 - column)) + "# " + note
    }

    private func nestedStruct(_ type: SwiftTypeReference, scope: String) -> AppTypeDeclaration? {
        guard case .named(let name) = type, let found = types.resolve(name, from: scope) else { return nil }
        if case .structure(let inner) = found, case .synthesized = inner.decoding { return found }
        return nil
    }

    /// A value of the type, as YAML the scenario format reads.
    private func sample(_ type: SwiftTypeReference, scope: String) -> String {
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
            return "[0, 1]"
        case .named(let name):
            guard let found = types.resolve(name, from: scope) else { return "null" }
            switch found {
            case .enumeration(let type):
                guard let first = type.cases.first, case .synthesized = type.decoding else { return "null" }
                return type.rawType == .string ? Self.quoted(first.rawValue) : first.rawValue
            case .alias(let aliasName, let target, _):
                return sample(target, scope: aliasName.split(separator: ".").dropLast().joined(separator: "."))
            case .structure:
                return "{}"
            }
        case .unsupported: return "null"
        }
    }

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
