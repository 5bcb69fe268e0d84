/// A problem inside a `{{ }}` template, at a character offset of the string it was written in.
public struct TemplateSyntaxError: Error, Sendable {
    /// Offset in Unicode scalars from the start of the string.
    public var offset: Int
    /// What is wrong there.
    public var message: String
}

/// Parses strings that hold `{{ expr }}` templates.
///
/// `parse` returns nil for a string with no `{{`, so plain strings cost nothing. A string that is
/// exactly one template (surrounding spaces allowed) becomes an ``Expression`` and keeps its
/// type; anything else becomes a ``TextTemplate``.
package struct TemplateParser {
    package enum Parsed {
        case expression(Expression)
        case text(TextTemplate)
    }

    /// Numbers `random` and `pick` call sites across a file, so each draws independently.
    var nextSite = 0
    /// What names the template being parsed may use.
    package var scope = TemplateScope.anywhere
    /// How deep parentheses, `-` and calls are nested at the current token.
    private var depth = 0

    /// The longest expression between `{{` and `}}`, in characters; a longer one is refused, so
    /// evaluating it (recursively) stays cheap and shallow.
    static let maxExpressionLength = 1000
    /// The deepest nesting of parentheses, `-` and calls in one expression.
    static let maxDepth = 32

    package init() {}

    package mutating func parse(_ text: String) throws(TemplateSyntaxError) -> Parsed? {
        guard text.contains("{{") || text.contains("}}") else { return nil }
        let scalars = Array(text.unicodeScalars)
        var parts: [TextTemplate.Part] = []
        var literal = ""
        var i = 0
        while i < scalars.count {
            if scalars[i] == "{", i + 1 < scalars.count, scalars[i + 1] == "{" {
                guard let close = Self.find("}}", in: scalars, from: i + 2) else {
                    throw TemplateSyntaxError(offset: i, message: "'{{' is never closed; expected '}}'")
                }
                if close - (i + 2) > Self.maxExpressionLength {
                    throw TemplateSyntaxError(
                        offset: i,
                        message:
                            "this expression is \(close - i - 2) characters long; a template expression may have at most \(Self.maxExpressionLength)"
                    )
                }
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                var lexer = ExpressionLexer(scalars: scalars, start: i + 2, end: close)
                let expression = try parseExpression(&lexer)
                parts.append(.expression(expression))
                i = close + 2
            } else if scalars[i] == "}", i + 1 < scalars.count, scalars[i + 1] == "}" {
                throw TemplateSyntaxError(offset: i, message: "'}}' without an opening '{{'")
            } else {
                literal.unicodeScalars.append(scalars[i])
                i += 1
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        if parts.count == 1, case .expression(let expression) = parts[0] { return .expression(expression) }
        let trimmed = parts.filter {
            if case .literal(let text) = $0 { return !text.allSatisfy(\.isWhitespace) }
            return true
        }
        if trimmed.count == 1, case .expression(let expression) = trimmed[0] { return .expression(expression) }
        return .text(TextTemplate(parts: parts))
    }

    private static func find(_ needle: String, in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        let needle = Array(needle.unicodeScalars)
        var i = start
        while i + needle.count <= scalars.count {
            if Array(scalars[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    // MARK: Grammar
    //   expression := term (("+" | "-") term)*
    //   term       := unary (("*" | "/" | "%") unary)*
    //   unary      := "-" unary | primary
    //   primary    := number | string | name ("." name)* | call | "(" expression ")"
    //   call       := ("random" | "pick") "(" expression ("," expression)* ")"

    private mutating func parseExpression(_ lexer: inout ExpressionLexer) throws(TemplateSyntaxError) -> Expression {
        let expression = try parseSum(&lexer)
        let token = try lexer.next()
        guard case .end = token.kind else {
            throw TemplateSyntaxError(
                offset: token.offset, message: "unexpected \(token.kind) in template; expected an operator or '}}'")
        }
        return expression
    }

    private mutating func parseSum(_ lexer: inout ExpressionLexer) throws(TemplateSyntaxError) -> Expression {
        var lhs = try parseProduct(&lexer)
        while case .symbol(let s) = try lexer.peek().kind, s == "+" || s == "-" {
            _ = try lexer.next()
            let rhs = try parseProduct(&lexer)
            lhs = .binary(s == "+" ? .add : .subtract, lhs, rhs)
        }
        return lhs
    }

    private mutating func parseProduct(_ lexer: inout ExpressionLexer) throws(TemplateSyntaxError) -> Expression {
        var lhs = try parseUnary(&lexer)
        while case .symbol(let s) = try lexer.peek().kind, s == "*" || s == "/" || s == "%" {
            _ = try lexer.next()
            let rhs = try parseUnary(&lexer)
            lhs = .binary(s == "*" ? .multiply : s == "/" ? .divide : .remainder, lhs, rhs)
        }
        return lhs
    }

    private mutating func parseUnary(_ lexer: inout ExpressionLexer) throws(TemplateSyntaxError) -> Expression {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maxDepth {
            throw TemplateSyntaxError(
                offset: try lexer.peek().offset,
                message: "nested more than \(Self.maxDepth) levels deep (parentheses, '-' or calls)")
        }
        if case .symbol("-") = try lexer.peek().kind {
            _ = try lexer.next()
            let operand = try parseUnary(&lexer)
            if case .number(.int(let i)) = operand { return .number(.int(-i)) }
            if case .number(.double(let d)) = operand { return .number(.double(-d)) }
            return .negate(operand)
        }
        return try parsePrimary(&lexer)
    }

    private mutating func parsePrimary(_ lexer: inout ExpressionLexer) throws(TemplateSyntaxError) -> Expression {
        let token = try lexer.next()
        switch token.kind {
        case .number(let value): return .number(value)
        case .string(let text): return .string(text)
        case .symbol("("):
            let inner = try parseSum(&lexer)
            try lexer.expect(")")
            return inner
        case .name(let name):
            if case .symbol("(") = try lexer.peek().kind {
                return try parseCall(name, at: token.offset, &lexer)
            }
            var path: [String] = []
            while case .symbol(".") = try lexer.peek().kind {
                _ = try lexer.next()
                let field = try lexer.next()
                guard case .name(let key) = field.kind else {
                    throw TemplateSyntaxError(offset: field.offset, message: "expected a field name after '.'")
                }
                path.append(key)
            }
            return try resolve(name, path: path, at: token.offset)
        default:
            throw TemplateSyntaxError(
                offset: token.offset,
                message: "expected a number, a string, a name or '(' in template, found \(token.kind)")
        }
    }

    private func resolve(_ name: String, path: [String], at offset: Int) throws(TemplateSyntaxError) -> Expression {
        switch name {
        case "state":
            guard !path.isEmpty else {
                throw TemplateSyntaxError(offset: offset, message: "'state' needs a field, like state.score")
            }
            guard let state = scope.state else {
                throw TemplateSyntaxError(
                    offset: offset,
                    message:
                        "'state.\(path.joined(separator: "."))' is not available \(scope.place): there is no content-state yet"
                )
            }
            if let problem = Self.missingField(path, in: state) {
                throw TemplateSyntaxError(
                    offset: offset, message: "template names 'state.\(path.joined(separator: "."))', but \(problem)")
            }
            return .state(path)
        case "input":
            guard !path.isEmpty else {
                throw TemplateSyntaxError(
                    offset: offset, message: "'input' needs a field of the webhook body, like input.status")
            }
            guard scope.allowsInput else {
                throw TemplateSyntaxError(
                    offset: offset,
                    message:
                        "'input.\(path.joined(separator: "."))' is only set when the bridge triggers a beat by its id; this one is \(scope.place)"
                )
            }
            return .input(path)
        case "attributes":
            guard !path.isEmpty else {
                throw TemplateSyntaxError(
                    offset: offset, message: "'attributes' needs a field, like attributes.homeTeam")
            }
            guard let attributes = scope.attributes else {
                throw TemplateSyntaxError(
                    offset: offset,
                    message:
                        "'attributes.\(path.joined(separator: "."))' can be read only in android: values; this template is \(scope.place)"
                )
            }
            if let problem = Self.missingField(path, in: attributes, owner: "the attributes") {
                throw TemplateSyntaxError(
                    offset: offset,
                    message: "template names 'attributes.\(path.joined(separator: "."))', but \(problem)")
            }
            return .attributes(path)
        default:
            guard let variable = Expression.Variable(rawValue: name) else {
                let hint = DidYouMean.hint(for: name, among: Expression.knownNames)
                throw TemplateSyntaxError(
                    offset: offset,
                    message:
                        "template names '\(name)', which is not defined; expected n, minute, second, activity, index, state.<field>, input.<field>, random(a, b) or pick(…)\(hint)"
                )
            }
            guard path.isEmpty else {
                throw TemplateSyntaxError(offset: offset, message: "'\(name)' has no fields")
            }
            if variable == .n, !scope.allowsN {
                throw TemplateSyntaxError(
                    offset: offset,
                    message:
                        "'n' counts the occurrences of a repeating beat (every:), but this template is \(scope.place)")
            }
            return .variable(variable)
        }
    }

    /// Why `path` names nothing in the content-state template, or nil when it names a field.
    static func missingField(_ path: [String], in state: ValueTemplate, owner top: String = "content-state") -> String?
    {
        var current = state
        var walked: [String] = []
        for key in path {
            guard let fields = current.fields else {
                return "'\(walked.joined(separator: "."))' is not an object"
            }
            guard let field = fields.first(where: { $0.key == key }) else {
                let owner = walked.isEmpty ? top : "'\(walked.joined(separator: "."))'"
                let hint = DidYouMean.hint(for: key, among: fields.map(\.key))
                return "\(owner) has no field '\(key)'\(hint)"
            }
            walked.append(key)
            current = field.value
        }
        return nil
    }

    private mutating func parseCall(
        _ name: String, at offset: Int, _ lexer: inout ExpressionLexer
    ) throws(TemplateSyntaxError) -> Expression {
        try lexer.expect("(")
        var arguments: [Expression] = []
        if case .symbol(")") = try lexer.peek().kind {
            _ = try lexer.next()
        } else {
            while true {
                arguments.append(try parseSum(&lexer))
                let token = try lexer.next()
                if case .symbol(")") = token.kind { break }
                guard case .symbol(",") = token.kind else {
                    throw TemplateSyntaxError(
                        offset: token.offset,
                        message: "expected ',' or ')' in the arguments of \(name)(…), found \(token.kind)")
                }
            }
        }
        defer { nextSite += 1 }
        switch name {
        case "random":
            guard arguments.count == 2 else {
                throw TemplateSyntaxError(
                    offset: offset,
                    message: "random takes two whole numbers, random(low, high); found \(arguments.count) argument(s)")
            }
            return .random(arguments[0], arguments[1], site: nextSite)
        case "pick":
            guard !arguments.isEmpty else {
                throw TemplateSyntaxError(
                    offset: offset, message: "pick needs at least one choice, like pick(\"a\", \"b\")")
            }
            return .pick(arguments, site: nextSite)
        default:
            let hint = DidYouMean.hint(for: name, among: ["random", "pick"])
            throw TemplateSyntaxError(
                offset: offset, message: "unknown function '\(name)'; expected random(a, b) or pick(…)\(hint)")
        }
    }
}

/// Splits the inside of `{{ }}` into tokens, remembering where each starts.
struct ExpressionLexer {
    enum Kind: CustomStringConvertible {
        case number(StateValue)
        case string(String)
        case name(String)
        case symbol(String)
        case end

        var description: String {
            switch self {
            case .number(let value): "number \(value.templateText)"
            case .string(let text): "string \"\(text)\""
            case .name(let name): "'\(name)'"
            case .symbol(let symbol): "'\(symbol)'"
            case .end: "the end of the template"
            }
        }
    }

    struct Token {
        var kind: Kind
        var offset: Int
    }

    let scalars: [Unicode.Scalar]
    var position: Int
    let end: Int
    private var peeked: Token?

    init(scalars: [Unicode.Scalar], start: Int, end: Int) {
        self.scalars = scalars
        self.position = start
        self.end = end
    }

    mutating func peek() throws(TemplateSyntaxError) -> Token {
        if let peeked { return peeked }
        let token = try scan()
        peeked = token
        return token
    }

    mutating func next() throws(TemplateSyntaxError) -> Token {
        if let token = peeked {
            peeked = nil
            return token
        }
        return try scan()
    }

    mutating func expect(_ symbol: String) throws(TemplateSyntaxError) {
        let token = try next()
        guard case .symbol(let found) = token.kind, found == symbol else {
            throw TemplateSyntaxError(offset: token.offset, message: "expected '\(symbol)', found \(token.kind)")
        }
    }

    private mutating func scan() throws(TemplateSyntaxError) -> Token {
        while position < end, scalars[position].properties.isWhitespace { position += 1 }
        guard position < end else { return Token(kind: .end, offset: end) }
        let start = position
        let c = scalars[position]
        if c.isASCIIDigit {
            var text = ""
            var isDecimal = false
            while position < end, scalars[position].isASCIIDigit || (scalars[position] == "." && !isDecimal) {
                if scalars[position] == "." {
                    guard position + 1 < end, scalars[position + 1].isASCIIDigit else { break }
                    isDecimal = true
                }
                text.unicodeScalars.append(scalars[position])
                position += 1
            }
            if isDecimal, let value = Double(text) { return Token(kind: .number(.double(value)), offset: start) }
            guard let value = Int(text) else {
                throw TemplateSyntaxError(offset: start, message: "number \(text) is too large")
            }
            return Token(kind: .number(.int(value)), offset: start)
        }
        if c == "\"" || c == "'" {
            position += 1
            var text = ""
            while position < end, scalars[position] != c {
                if scalars[position] == "\\", position + 1 < end {
                    position += 1
                }
                text.unicodeScalars.append(scalars[position])
                position += 1
            }
            guard position < end else {
                throw TemplateSyntaxError(offset: start, message: "string is never closed; expected \(c)")
            }
            position += 1
            return Token(kind: .string(text), offset: start)
        }
        if c.isNameStart {
            var name = ""
            while position < end, scalars[position].isNameStart || scalars[position].isASCIIDigit {
                name.unicodeScalars.append(scalars[position])
                position += 1
            }
            return Token(kind: .name(name), offset: start)
        }
        if "+-*/%(),.".unicodeScalars.contains(c) {
            position += 1
            return Token(kind: .symbol(String(c)), offset: start)
        }
        throw TemplateSyntaxError(offset: start, message: "unexpected character '\(c)' in template")
    }
}

extension Unicode.Scalar {
    var isASCIIDigit: Bool { value >= 48 && value <= 57 }
    var isNameStart: Bool { (value >= 65 && value <= 90) || (value >= 97 && value <= 122) || value == 95 }
}

/// What a template may name where it is written.
package struct TemplateScope {
    /// `n` exists only in repeating beats.
    var allowsN: Bool
    /// `input.` exists only in beats the bridge triggers.
    var allowsInput: Bool
    /// The initial content-state, to check `state.` paths; nil where there is no state yet.
    var state: ValueTemplate?
    /// Where the template is, for messages: "in attributes", "in a beat that happens once".
    var place: String
    /// The attributes, to check `attributes.` paths; nil where templates may not read them.
    var attributes: ValueTemplate?

    package init(
        allowsN: Bool, allowsInput: Bool, state: ValueTemplate?, place: String, attributes: ValueTemplate? = nil
    ) {
        self.allowsN = allowsN
        self.allowsInput = allowsInput
        self.state = state
        self.place = place
        self.attributes = attributes
    }

    static let anywhere = TemplateScope(allowsN: true, allowsInput: true, state: nil, place: "here")
}
