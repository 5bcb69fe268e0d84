import Foundation
import Liveline

/// Walks a value against the app's types with the rules of a default `JSONDecoder` and the
/// compiler's synthesized `Decodable`.
///
/// The rules, each tested against Foundation's own decoder (`DecoderAgreementTests`):
/// - a struct's keys are its property names exactly, or its `CodingKeys`' raw values; a
///   property `CodingKeys` leaves out, or a `let` with an initial value, is not decoded;
/// - a `var` with a default value is still required; only an `Optional` may be absent or `null`;
/// - an enum with raw values decodes from one of them; one without decodes from an object whose
///   only key naming a case is that case (`{"preparing": {}}`), holding its associated values by
///   label (`_0`, `_1` unlabelled); keys a type does not read are ignored;
/// - a `Date` is a number of seconds since 2001 (`.deferredToDate`); a number above 1.5e9 there
///   was almost surely sent as UNIX seconds: it decodes, to a date 31 years ahead (``DecodeProblem/Kind/misread``);
/// - an integer type takes a whole number in its range (`2.0` decodes into `Int`, `2.5` does
///   not); `Float` and `Float16` reject numbers beyond their range; `CGPoint`, `CGSize`,
///   `CGVector` are `[a, b]`, `CGRect` `[[x, y], [width, height]]`;
/// - `ClosedRange`/`Range` is `[lower, upper]` with lower not above upper; `URL` a non-empty
///   string; `UUID` the 8-4-4-4-12 form; `Decimal` a number, not a string; `Data` base64;
/// - `[String: V]` and `[Int: V]` are objects; other dictionary keys are not checked.
///
/// A type with a hand-written `init(from:)`, one not found in the sources, or a value known
/// only at run time is reported as ``DecodeProblem/Kind/unchecked``; for a hand-written decoder
/// the keys its `CodingKeys` declares are still compared with the value's.
public struct DecodeChecker: Sendable {
    public let types: AppTypes

    /// Reference-date seconds stay below this until 2048; a `Date` field holding more was sent as UNIX seconds.
    static let unixSecondsThreshold: Double = 1.5e9

    public init(types: AppTypes) { self.types = types }

    /// Checks `value` as the `ContentState` of `attributes`; `path` prefixes messages.
    public func checkContentState(
        _ value: CheckedValue, of attributes: AppStruct, path: String = "content-state", location: SourceLocation? = nil
    ) -> [DecodeProblem] {
        var problems: [DecodeProblem] = []
        guard let state = types.contentState(of: attributes) else {
            return [
                DecodeProblem(
                    kind: .unchecked, path: path,
                    message:
                        "\(attributes.name) has no ContentState type in the sources read; the content-state is not checked",
                    location: location, declaration: attributes.declaration
                )
            ]
        }
        check(value, against: state, path: path, declaration: state.declaration, location: location, into: &problems)
        return problems
    }

    /// Checks `value` as the static attributes of `attributes`.
    public func checkAttributes(
        _ value: CheckedValue, of attributes: AppStruct, path: String = "attributes", location: SourceLocation? = nil
    ) -> [DecodeProblem] {
        var problems: [DecodeProblem] = []
        check(
            value, against: .structure(attributes), path: path, declaration: attributes.declaration, location: location,
            into: &problems)
        return problems
    }

    /// Checks `value` as one field of a type: `type` as the property declares it, looked up from `scope`.
    public func check(
        _ value: CheckedValue, as type: SwiftTypeReference, scope: String, path: String, declaration: SwiftDeclaration?,
        location: SourceLocation?
    ) -> [DecodeProblem] {
        var problems: [DecodeProblem] = []
        check(value, as: type, scope: scope, path: path, declaration: declaration, location: location, into: &problems)
        return problems
    }

    // MARK: - The walk

    private struct Site {
        var path: String
        var declaration: SwiftDeclaration?
        var location: SourceLocation?
    }

    private func check(
        _ value: CheckedValue, against declared: AppTypeDeclaration, path: String, declaration: SwiftDeclaration?,
        location: SourceLocation?, into problems: inout [DecodeProblem]
    ) {
        let site = Site(path: path, declaration: declaration, location: location)
        switch declared {
        case .alias(let name, let target, _):
            let scope = name.split(separator: ".").dropLast().joined(separator: ".")
            check(
                value, as: target, scope: scope, path: path, declaration: declaration, location: location,
                into: &problems)
        case .structure(let type):
            checkStruct(value, type, site, &problems)
        case .enumeration(let type):
            checkEnum(value, type, site, &problems)
        }
    }

    private func check(
        _ value: CheckedValue, as type: SwiftTypeReference, scope: String, path: String, declaration: SwiftDeclaration?,
        location: SourceLocation?, into problems: inout [DecodeProblem]
    ) {
        let site = Site(path: path, declaration: declaration, location: location)
        switch value {
        case .oneOf(let choices):
            for choice in choices {
                check(
                    choice, as: type, scope: scope, path: path, declaration: declaration, location: location,
                    into: &problems)
            }
            return
        case .runtime(let text):
            // Text from a webhook fits a String field whatever it says; anything else may not.
            if case .string = type.unwrapped { return }
            problems.append(
                unchecked(site, "\(path) is \(text), known only when the event arrives; the app decodes \(type) here"))
            return
        case .known(.null):
            if case .optional = type { return }
            problems.append(fails(site, "\(path) is null, but the app's \(type) is not optional"))
            return
        default:
            break
        }
        switch type {
        case .optional(let wrapped):
            check(
                value, as: wrapped, scope: scope, path: path, declaration: declaration, location: location,
                into: &problems)
        case .bool:
            expect(value, .bool, type, site, &problems)
        case .string:
            expect(value, .string, type, site, &problems)
        case .integer(let kind):
            checkInteger(value, kind, site, &problems)
        case .floatingPoint(let name):
            checkFloatingPoint(value, name, site, &problems)
        case .decimal:
            checkNumber(value, type, site, &problems)
        case .date:
            checkDate(value, site, &problems)
        case .url:
            guard expect(value, .string, type, site, &problems) else { return }
            if case .known(.string(let text)) = value, text.isEmpty {
                problems.append(fails(site, "\(path) is an empty string, which a URL does not decode from"))
            }
        case .uuid:
            guard expect(value, .string, type, site, &problems) else { return }
            if case .known(.string(let text)) = value, UUID(uuidString: text) == nil {
                problems.append(
                    fails(site, "\(path) is \(describe(value)), not a UUID (8-4-4-4-12 hexadecimal digits)"))
            }
        case .data:
            guard expect(value, .string, type, site, &problems) else { return }
            if case .known(.string(let text)) = value, Data(base64Encoded: text) == nil {
                problems.append(fails(site, "\(path) is \(describe(value)), not base64, which Data decodes from"))
            }
        case .array(let element):
            checkArray(value, element, scope, site, &problems)
        case .dictionary(let key, let element):
            checkDictionary(value, key: key, value: element, scope, site, &problems)
        case .range(let bound, let closed):
            checkRange(value, bound, closed, scope, site, &problems)
        case .unkeyed(let name, let parts):
            checkUnkeyed(value, name, parts, scope, site, &problems)
        case .named(let name):
            guard let found = types.resolve(name, from: scope) else {
                problems.append(
                    unchecked(site, "\(path): the type \(name) is not declared in the app's sources read; not checked"))
                return
            }
            check(value, against: found, path: path, declaration: declaration, location: location, into: &problems)
        case .generic(let name, let arguments):
            guard let found = types.specialized(name, arguments, from: scope) else {
                problems.append(
                    unchecked(
                        site,
                        "\(path): the type \(type) is not a generic struct declared in the app's sources read; not checked"
                    ))
                return
            }
            check(value, against: found, path: path, declaration: declaration, location: location, into: &problems)
        case .unsupported(let text):
            problems.append(unchecked(site, "\(path): the type \(text) is not one Liveline models; not checked"))
        }
    }

    private func checkStruct(_ value: CheckedValue, _ type: AppStruct, _ site: Site, _ problems: inout [DecodeProblem])
    {
        if case .handWritten(let decoder) = type.decoding {
            checkHandWritten(value, type, decoder, site, &problems)
            return
        }
        if case .typed(.object, _) = value { return }
        guard let fields = value.objectFields else {
            problems.append(
                fails(site, "\(site.path) is \(describe(value)), but the app decodes \(type.name), an object"))
            return
        }
        let decoded = type.decodedFields
        for (key, property) in decoded {
            let field = fields.first { $0.key == key }
            let path = site.path + "." + key
            guard let field else {
                if property.type.isOptional { continue }
                if let written = fields.first(where: { $0.key == property.name }), key != property.name {
                    problems.append(
                        DecodeProblem(
                            kind: .fails, path: path,
                            message:
                                "\(site.path).\(property.name) is written, but CodingKeys renames it: the app decodes it from \"\(key)\"",
                            location: written.location ?? site.location,
                            declaration: type.codingKeys?.declaration ?? property.declaration
                        ))
                    continue
                }
                var message = "\(path) is missing, but the app's \(type.name) requires it"
                if property.hasInitialValue {
                    message += " (a var with a default value is still decoded; make it Optional to let it be absent)"
                }
                problems.append(
                    DecodeProblem(
                        kind: .fails, path: path, message: message, location: site.location,
                        declaration: property.declaration))
                continue
            }
            check(
                field.value, as: property.type, scope: type.name, path: path, declaration: property.declaration,
                location: field.location ?? site.location, into: &problems
            )
        }
        let decodedKeys = Set(decoded.map(\.key))
        for field in fields where !decodedKeys.contains(field.key) {
            let path = site.path + "." + field.key
            let fieldSite = Site(path: path, declaration: type.declaration, location: field.location ?? site.location)
            if let property = type.properties.first(where: { $0.name == field.key }) {
                let renamed = property.isDecoded(with: type.codingKeys) ? type.codingKeys?.key(for: property.name) : nil
                // A required field written by its Swift name was reported above, with the key to use.
                if let renamed, !property.type.isOptional, !fields.contains(where: { $0.key == renamed }) { continue }
                let why =
                    if let renamed {
                        "CodingKeys renames it, so the app reads \"\(renamed)\""
                            + (property.type.isOptional && !fields.contains { $0.key == renamed }
                                ? " and, finding none, decodes nil" : "")
                    } else if property.isLet && property.hasInitialValue {
                        "a let with an initial value is never decoded"
                    } else {
                        "CodingKeys leaves it out"
                    }
                problems.append(
                    DecodeProblem(
                        kind: .ignored, path: path, message: "\(path) is ignored by the app: \(why)",
                        location: fieldSite.location,
                        declaration: renamed == nil
                            ? property.declaration : type.codingKeys?.declaration ?? property.declaration
                    ))
            } else if renamedTarget(field.key, in: type) == nil {
                let hint = DidYouMean.hint(for: field.key, among: decoded.map(\.key))
                problems.append(
                    ignored(fieldSite, "\(path) is ignored by the app: \(type.name) has no such key\(hint)"))
            }
        }
    }

    /// A hand-written `init(from:)`: what it accepts is known only by running it. The keys its
    /// `CodingKeys` lists are the only ones it can read by name, so a key outside them is said.
    private func checkHandWritten(
        _ value: CheckedValue, _ type: AppStruct, _ decoder: SwiftDeclaration, _ site: Site,
        _ problems: inout [DecodeProblem]
    ) {
        let at = decoder.description.split(separator: ":").prefix(2).joined(separator: ":")
        var message =
            "\(site.path): \(type.name) decodes itself (a hand-written init(from:) at \(at)); what it accepts is known only by running it, so it is not checked"
        let keys = type.codingKeys.map { Set($0.keys.values) }
        if let keys, !keys.isEmpty {
            message += "; its CodingKeys name \(keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))"
        }
        problems.append(
            DecodeProblem(
                kind: .unchecked, path: site.path, message: message, location: site.location, declaration: decoder))
        guard let keys, !keys.isEmpty, let fields = value.objectFields else { return }
        for field in fields where !keys.contains(field.key) {
            let path = site.path + "." + field.key
            let hint = DidYouMean.hint(for: field.key, among: keys.sorted())
            problems.append(
                DecodeProblem(
                    kind: .ignored, path: path,
                    message:
                        "\(path) is not a key of \(type.name)'s CodingKeys, so its init(from:) cannot read it by name\(hint)",
                    location: field.location ?? site.location, declaration: type.codingKeys?.declaration
                ))
        }
    }

    private func renamedTarget(_ key: String, in type: AppStruct) -> String? {
        type.codingKeys?.keys[key].flatMap { $0 == key ? nil : $0 }
    }

    private func checkEnum(_ value: CheckedValue, _ type: AppEnum, _ site: Site, _ problems: inout [DecodeProblem]) {
        if case .handWritten(let decoder) = type.decoding {
            problems.append(
                DecodeProblem(
                    kind: .unchecked, path: site.path,
                    message: "\(site.path): \(type.name) decodes itself (a hand-written init(from:)); not checked",
                    location: site.location, declaration: decoder
                ))
            return
        }
        let raws = type.cases.map(\.rawValue)
        let list =
            raws.prefix(8).map { type.rawType == .string ? "\"\($0)\"" : $0 }.joined(separator: ", ")
            + (raws.count > 8 ? ", …" : "")
        switch type.rawType {
        case .none:
            checkCaseObject(value, type, site, &problems)
        case .string:
            switch value {
            case .known(.string(let text)):
                if !raws.contains(text) {
                    let hint = DidYouMean.hint(for: text, among: raws)
                    problems.append(
                        fails(
                            site,
                            "\(site.path) is \(describe(value)), which is not a raw value of \(type.name) (one of \(list))\(hint)"
                        ))
                }
            case .typed(.string, let text):
                problems.append(
                    unchecked(
                        site, "\(site.path) is \(text), known only when played; \(type.name) decodes only \(list)"))
            default:
                problems.append(
                    fails(
                        site,
                        "\(site.path) is \(describe(value)), but the app decodes \(type.name), a string (one of \(list))"
                    ))
            }
        case .integer, .floatingPoint:
            switch value {
            case .known(.int(let number)):
                if type.rawType == .integer, !raws.contains(String(number)) {
                    problems.append(
                        fails(
                            site, "\(site.path) is \(number), which is not a raw value of \(type.name) (one of \(list))"
                        ))
                }
            case .known(.double), .typed(.int, _), .typed(.double, _):
                break
            default:
                problems.append(
                    fails(
                        site,
                        "\(site.path) is \(describe(value)), but the app decodes \(type.name), a number (one of \(list))"
                    ))
            }
        }
    }

    /// An enum without raw values: `{"case": {associated values by label}}`. The decoder reads
    /// the keys naming a case and ignores the rest; exactly one must name a case.
    private func checkCaseObject(
        _ value: CheckedValue, _ type: AppEnum, _ site: Site, _ problems: inout [DecodeProblem]
    ) {
        let names = type.cases.map { type.key(for: $0) }
        let list = names.prefix(8).joined(separator: ", ") + (names.count > 8 ? ", …" : "")
        let form =
            type.cases.first.map {
                "{\"\(type.key(for: $0))\": {" + $0.associatedValues.map { "\"\($0.name)\": …" }.joined(separator: ", ")
                    + "}}"
            } ?? "{\"case\": {}}"
        if case .typed(.object, _) = value { return }
        guard let fields = value.objectFields else {
            var message =
                "\(site.path) is \(describe(value)), but \(type.name) has no raw values: its synthesized Codable decodes an object naming one case, like \(form) (one of \(list))"
            if case .known(.string(let text)) = value,
                let match = type.cases.first(where: { type.key(for: $0) == text })
            {
                message +=
                    "; write \(site.path.split(separator: ".").last.map(String.init) ?? site.path): { \(type.key(for: match)): {} }"
            }
            problems.append(fails(site, message))
            return
        }
        let named = fields.filter { names.contains($0.key) }
        guard named.count == 1, let field = named.first,
            let enumCase = type.cases.first(where: { type.key(for: $0) == field.key })
        else {
            if named.isEmpty {
                let hint = fields.first.map { DidYouMean.hint(for: $0.key, among: names) } ?? ""
                problems.append(
                    fails(
                        site,
                        "\(site.path) has no key naming a case of \(type.name) (one of \(list)), so it does not decode\(hint)"
                    ))
            } else {
                problems.append(
                    fails(
                        site,
                        "\(site.path) names \(named.count) cases of \(type.name) (\(named.map(\.key).joined(separator: ", "))); it decodes from exactly one"
                    ))
            }
            return
        }
        let payload = AppStruct(
            name: type.name + "." + enumCase.name,
            declaration: enumCase.associatedValues.first?.declaration ?? type.declaration,
            properties: enumCase.associatedValues, decoding: .synthesized, codingKeys: nil, isActivityAttributes: false
        )
        let scope = type.name
        if case .typed(.object, _) = field.value { return }
        guard let inner = field.value.objectFields else {
            let shape = enumCase.associatedValues.isEmpty ? "{}" : "an object of its associated values"
            problems.append(
                fails(
                    Site(
                        path: site.path + "." + field.key, declaration: site.declaration,
                        location: field.location ?? site.location),
                    "\(site.path).\(field.key) is \(describe(field.value)), but the case \(type.name).\(enumCase.name) decodes from \(shape)"
                ))
            return
        }
        for property in enumCase.associatedValues {
            let path = site.path + "." + field.key + "." + property.name
            guard let found = inner.first(where: { $0.key == property.name }) else {
                if property.type.isOptional { continue }
                problems.append(
                    DecodeProblem(
                        kind: .fails, path: path,
                        message: "\(path) is missing, but the app's \(payload.name) requires it",
                        location: field.location ?? site.location, declaration: property.declaration
                    ))
                continue
            }
            check(
                found.value, as: property.type, scope: scope, path: path, declaration: property.declaration,
                location: found.location ?? field.location ?? site.location, into: &problems)
        }
    }

    private func checkInteger(
        _ value: CheckedValue, _ kind: SwiftTypeReference.IntegerKind, _ site: Site, _ problems: inout [DecodeProblem]
    ) {
        switch value {
        case .known(.int(let number)):
            if !kind.bounds.contains(Double(number)) {
                problems.append(fails(site, "\(site.path) is \(number), outside the range of \(kind.rawValue)"))
            }
        case .known(.double(let number)):
            if number != number.rounded(.towardZero) {
                problems.append(
                    fails(
                        site,
                        "\(site.path) is \(number), a decimal, but the app decodes \(kind.rawValue), a whole number"))
            } else if !kind.bounds.contains(number) {
                problems.append(fails(site, "\(site.path) is \(number), outside the range of \(kind.rawValue)"))
            }
        case .known(.date):
            problems.append(
                unchecked(
                    site,
                    "\(site.path) is a !date, sent as reference-date seconds, but the app decodes \(kind.rawValue); declare it Date"
                ))
        case .typed(.int, _):
            break
        case .typed(.double, let text):
            problems.append(
                unchecked(
                    site,
                    "\(site.path) is \(text), which may not be whole; the app decodes \(kind.rawValue), which rejects a decimal"
                ))
        default:
            problems.append(mismatch(value, .integer(kind), site))
        }
    }

    private func checkFloatingPoint(
        _ value: CheckedValue, _ name: String, _ site: Site, _ problems: inout [DecodeProblem]
    ) {
        if let limit = SwiftTypeReference.floatingPointLimit(name), case .known(let known) = value,
            let number = Self.number(known),
            abs(number) > limit
        {
            problems.append(fails(site, "\(site.path) is \(Self.formatted(number)), beyond the range of \(name)"))
            return
        }
        checkNumber(value, .floatingPoint(name), site, &problems)
    }

    private func checkNumber(
        _ value: CheckedValue, _ type: SwiftTypeReference, _ site: Site, _ problems: inout [DecodeProblem]
    ) {
        switch value {
        case .known(.int), .known(.double), .known(.date), .typed(.int, _), .typed(.double, _), .typed(.date, _): break
        default: problems.append(mismatch(value, type, site))
        }
    }

    private func checkDate(_ value: CheckedValue, _ site: Site, _ problems: inout [DecodeProblem]) {
        switch value {
        case .known(.date), .typed(.date, _), .typed(.int, _), .typed(.double, _): break
        case .known(.int), .known(.double):
            if case .known(let known) = value, let seconds = Self.number(known), seconds > Self.unixSecondsThreshold {
                problems.append(
                    DecodeProblem(
                        kind: .misread, path: site.path,
                        message:
                            "\(site.path) is \(Self.formatted(seconds)), which looks like UNIX seconds: a Date decodes it as seconds since 2001, a date about 31 years ahead that the app would show (send UNIX seconds - 978307200)",
                        location: site.location, declaration: site.declaration
                    ))
            }
        case .known(.string), .typed(.string, _):
            problems.append(
                fails(
                    site,
                    "\(site.path) is \(describe(value)), but a Date decodes only from a number of seconds since 2001, not text; write it as !date"
                ))
        default:
            problems.append(mismatch(value, .date, site))
        }
    }

    private func checkArray(
        _ value: CheckedValue, _ element: SwiftTypeReference, _ scope: String, _ site: Site,
        _ problems: inout [DecodeProblem]
    ) {
        let items: [CheckedValue]
        switch ListItems(value) {
        case .items(let listed): items = listed
        case .unknown: return
        case .notAList:
            problems.append(mismatch(value, .array(element), site))
            return
        }
        for (index, item) in items.enumerated() {
            check(
                item, as: element, scope: scope, path: "\(site.path)[\(index)]", declaration: site.declaration,
                location: site.location, into: &problems)
        }
    }

    private func checkDictionary(
        _ value: CheckedValue, key: SwiftTypeReference, value element: SwiftTypeReference, _ scope: String,
        _ site: Site,
        _ problems: inout [DecodeProblem]
    ) {
        let type = SwiftTypeReference.dictionary(key: key, value: element)
        let isIntegerKey: Bool
        switch key {
        case .string: isIntegerKey = false
        case .integer: isIntegerKey = true
        default:
            problems.append(
                unchecked(
                    site,
                    "\(site.path): a dictionary keyed by \(key) encodes as a flat [key, value, …] list unless the key is CodingKeyRepresentable; not checked"
                ))
            return
        }
        if case .typed(.object, _) = value { return }
        guard let fields = value.objectFields else {
            problems.append(mismatch(value, type, site))
            return
        }
        for field in fields {
            let path = site.path + "." + field.key
            if isIntegerKey, Int(field.key) == nil {
                problems.append(
                    DecodeProblem(
                        kind: .fails, path: path,
                        message: "\(path): the key \"\(field.key)\" is not an integer, which \(type) needs",
                        location: field.location ?? site.location, declaration: site.declaration))
                continue
            }
            check(
                field.value, as: element, scope: scope, path: path, declaration: site.declaration,
                location: field.location ?? site.location, into: &problems)
        }
    }

    private func checkRange(
        _ value: CheckedValue, _ bound: SwiftTypeReference, _ closed: Bool, _ scope: String, _ site: Site,
        _ problems: inout [DecodeProblem]
    ) {
        let type = SwiftTypeReference.range(bound, closed: closed)
        switch value {
        case .known(.dateRange(let lower, let upper)):
            if case .date = bound {
                if lower > upper {
                    problems.append(
                        fails(site, "\(site.path) has its lower date after its upper one: \(type) fails to decode"))
                }
            } else {
                problems.append(fails(site, "\(site.path) is a date range, but the app decodes \(type)"))
            }
        case .typed(.dateRange, _):
            if case .date = bound {
            } else {
                problems.append(fails(site, "\(site.path) is a date range, but the app decodes \(type)"))
            }
        case .array(let items) where items.count >= 2:
            for (index, item) in items.prefix(2).enumerated() {
                check(
                    item, as: bound, scope: scope, path: "\(site.path)[\(index)]", declaration: site.declaration,
                    location: site.location, into: &problems)
            }
        case .known(.array(let items)) where items.count >= 2:
            for (index, item) in items.prefix(2).enumerated() {
                check(
                    .known(item), as: bound, scope: scope, path: "\(site.path)[\(index)]",
                    declaration: site.declaration, location: site.location, into: &problems)
            }
            if let lower = Self.number(items[0]), let upper = Self.number(items[1]), lower > upper {
                problems.append(
                    fails(
                        site,
                        "\(site.path) is [\(Self.formatted(lower)), \(Self.formatted(upper))], lower above upper: \(type) fails to decode"
                    ))
            }
        default:
            problems.append(fails(site, "\(site.path) is \(describe(value)), but \(type) decodes from [lower, upper]"))
        }
    }

    /// `CGPoint` and its kin: a list of at least as many parts as the type reads, in order.
    private func checkUnkeyed(
        _ value: CheckedValue, _ name: String, _ parts: [SwiftTypeReference], _ scope: String, _ site: Site,
        _ problems: inout [DecodeProblem]
    ) {
        let items: [CheckedValue]
        switch ListItems(value) {
        case .items(let listed): items = listed
        case .unknown: return
        case .notAList:
            problems.append(
                fails(
                    site,
                    "\(site.path) is \(describe(value)), but \(name) decodes from a list of \(parts.count) (\(parts.map(\.description).joined(separator: ", ")))"
                ))
            return
        }
        guard items.count >= parts.count else {
            problems.append(
                fails(
                    site,
                    "\(site.path) has \(items.count) of the \(parts.count) parts \(name) decodes (\(parts.map(\.description).joined(separator: ", ")))"
                ))
            return
        }
        for (index, part) in parts.enumerated() {
            check(
                items[index], as: part, scope: scope, path: "\(site.path)[\(index)]", declaration: site.declaration,
                location: site.location, into: &problems)
        }
    }

    /// A value as a list: its items, a list whose items are known only when played, or no list.
    private enum ListItems {
        case items([CheckedValue])
        case unknown
        case notAList

        init(_ value: CheckedValue) {
            switch value {
            case .array(let written): self = .items(written)
            case .known(.array(let values)): self = .items(values.map(CheckedValue.known))
            case .typed(.array, _): self = .unknown
            default: self = .notAList
            }
        }
    }

    // MARK: - Messages

    @discardableResult
    private func expect(
        _ value: CheckedValue, _ expected: ValueType, _ type: SwiftTypeReference, _ site: Site,
        _ problems: inout [DecodeProblem]
    ) -> Bool {
        let actual: ValueType?
        switch value {
        case .known(let known): actual = known.type
        case .typed(let type, _): actual = type
        case .object: actual = .object
        case .array: actual = .array
        case .oneOf, .runtime: actual = nil
        }
        guard let actual, actual != expected else { return true }
        problems.append(mismatch(value, type, site))
        return false
    }

    private func mismatch(_ value: CheckedValue, _ type: SwiftTypeReference, _ site: Site) -> DecodeProblem {
        fails(site, "\(site.path) is \(describe(value)), but the app decodes \(Self.article(type))")
    }

    private func fails(_ site: Site, _ message: String) -> DecodeProblem {
        DecodeProblem(
            kind: .fails, path: site.path, message: message, location: site.location, declaration: site.declaration)
    }

    private func ignored(_ site: Site, _ message: String) -> DecodeProblem {
        DecodeProblem(
            kind: .ignored, path: site.path, message: message, location: site.location, declaration: site.declaration)
    }

    private func unchecked(_ site: Site, _ message: String) -> DecodeProblem {
        DecodeProblem(
            kind: .unchecked, path: site.path, message: message, location: site.location, declaration: site.declaration)
    }

    static func article(_ type: SwiftTypeReference) -> String {
        switch type {
        case .array, .unkeyed: "a list (\(type))"
        case .dictionary: "an object (\(type))"
        case .integer, .floatingPoint, .decimal: "a number (\(type))"
        default: "a" + ("AEIOU".contains(type.description.first ?? "x") ? "n " : " ") + type.description
        }
    }

    func describe(_ value: CheckedValue) -> String {
        switch value {
        case .known(let known): Self.describe(known)
        case .typed(let type, let text): text.hasPrefix("a !") ? text : "\(text) (\(type))"
        case .oneOf: "one of several values"
        case .runtime(let text): text
        case .object: "an object"
        case .array: "a list"
        }
    }

    static func describe(_ value: StateValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): String(flag)
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .string(let text): "\"" + (text.count > 40 ? String(text.prefix(37)) + "…" : text) + "\""
        case .date: "a !date"
        case .dateRange: "a !daterange"
        case .array: "a list"
        case .object: "an object"
        }
    }

    static func number(_ value: StateValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 9e15 ? String(Int64(seconds)) : String(seconds)
    }
}
