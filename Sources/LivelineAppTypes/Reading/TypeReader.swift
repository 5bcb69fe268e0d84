import SwiftSyntax

/// Turns a type as written (`[String: Int]?`, `Optional<Date>`, `ClosedRange<Date>`) into a
/// ``SwiftTypeReference``.
enum TypeReader {
    static func reference(_ type: TypeSyntax) -> SwiftTypeReference {
        if let optional = type.as(OptionalTypeSyntax.self) { return .optional(reference(optional.wrappedType)) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return .optional(reference(unwrapped.wrappedType))
        }
        if let array = type.as(ArrayTypeSyntax.self) { return .array(reference(array.element)) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return .dictionary(key: reference(dictionary.key), value: reference(dictionary.value))
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return reference(attributed.baseType) }
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first {
            return reference(only.type)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return named(
                identifier.name.text, arguments: arguments(identifier.genericArgumentClause),
                text: type.trimmedDescription)
        }
        if let member = type.as(MemberTypeSyntax.self) {
            let base = member.baseType.trimmedDescription
            if ["Swift", "Foundation", "CoreGraphics", "CoreFoundation"].contains(base) {
                return named(
                    member.name.text, arguments: arguments(member.genericArgumentClause), text: type.trimmedDescription)
            }
            if member.genericArgumentClause != nil { return .unsupported(type.trimmedDescription) }
            return .named(type.trimmedDescription)
        }
        return .unsupported(type.trimmedDescription)
    }

    private static func arguments(_ clause: GenericArgumentClauseSyntax?) -> [TypeSyntax]? {
        guard let clause else { return nil }
        return clause.arguments.compactMap { argument in
            // swift-syntax 601 made an argument a type or, for value generics, an expression.
            #if canImport(SwiftSyntax601)
                if case .type(let type) = argument.argument { return type }
                return nil
            #else
                return argument.argument
            #endif
        }
    }

    private static func named(_ name: String, arguments: [TypeSyntax]?, text: String) -> SwiftTypeReference {
        if let arguments {
            switch (name, arguments.count) {
            case ("Optional", 1): return .optional(reference(arguments[0]))
            case ("Array", 1), ("Set", 1), ("ContiguousArray", 1): return .array(reference(arguments[0]))
            case ("Dictionary", 2): return .dictionary(key: reference(arguments[0]), value: reference(arguments[1]))
            case ("ClosedRange", 1): return .range(reference(arguments[0]), closed: true)
            case ("Range", 1): return .range(reference(arguments[0]), closed: false)
            default: return .generic(name, arguments.map(reference))
            }
        }
        if let kind = SwiftTypeReference.IntegerKind(rawValue: name) { return .integer(kind) }
        switch name {
        case "Bool": return .bool
        case "Double", "Float", "CGFloat", "Float16", "Float32", "Float64", "Float80", "TimeInterval", "CFTimeInterval",
            "CGFloat.NativeType":
            return .floatingPoint(name)
        case "NSInteger": return .integer(.int)
        case "NSUInteger": return .integer(.uint)
        case "CGPoint": return .unkeyed(name, [.floatingPoint("CGFloat"), .floatingPoint("CGFloat")])
        case "CGSize": return .unkeyed(name, [.floatingPoint("CGFloat"), .floatingPoint("CGFloat")])
        case "CGVector": return .unkeyed(name, [.floatingPoint("CGFloat"), .floatingPoint("CGFloat")])
        case "CGRect":
            let pair = SwiftTypeReference.unkeyed("CGPoint", [.floatingPoint("CGFloat"), .floatingPoint("CGFloat")])
            return .unkeyed(name, [pair, .unkeyed("CGSize", [.floatingPoint("CGFloat"), .floatingPoint("CGFloat")])])
        case "Decimal": return .decimal
        case "String": return .string
        case "Date": return .date
        case "URL": return .url
        case "UUID": return .uuid
        case "Data": return .data
        default: return .named(name)
        }
    }

    /// The type Swift infers for `var count = 0` and the like; anything but a plain literal is
    /// not inferred here.
    static func inferred(from value: ExprSyntax) -> SwiftTypeReference {
        if value.is(IntegerLiteralExprSyntax.self) { return .integer(.int) }
        if value.is(FloatLiteralExprSyntax.self) { return .floatingPoint("Double") }
        if value.is(StringLiteralExprSyntax.self) { return .string }
        if value.is(BooleanLiteralExprSyntax.self) { return .bool }
        if let prefix = value.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return inferred(from: prefix.expression)
        }
        // `= Phase.live`, `= TimerColor.running`: a case or static member of the type named.
        if let member = value.as(MemberAccessExprSyntax.self), let base = member.base?.as(DeclReferenceExprSyntax.self),
            let first = base.baseName.text.first, first.isUppercase
        {
            return TypeReader.named(base.baseName.text, arguments: nil, text: base.baseName.text)
        }
        if let call = value.as(FunctionCallExprSyntax.self),
            let callee = call.calledExpression.as(DeclReferenceExprSyntax.self)
        {
            let name = callee.baseName.text
            if let first = name.first, first.isUppercase { return TypeReader.named(name, arguments: nil, text: name) }
        }
        return .unsupported("a type inferred from \(value.trimmedDescription)")
    }
}
