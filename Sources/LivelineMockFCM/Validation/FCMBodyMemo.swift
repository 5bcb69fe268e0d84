/// The last `messages:send` body a connection read, so that the next body that differs from it
/// only in its target (a fan-out's next phone: the same message, another token) is not read
/// again.
///
/// A body qualifies when it starts `{"message":{"token":"` (or `"fid"`) and that first value,
/// plain ASCII without escapes, is the target the reader found. Trust is earned, not assumed:
/// the first body that matches the template is read in full all the same, and only when it read
/// as the template's message with its own target (the same data, priority, ttl…) are later
/// matching bodies answered from the memo. That one comparison is what rules out a body whose
/// target the first value is not (a repeated `token`, which the reader takes the last of), so
/// the validator's answer is the same with the memo as without it. The target's own checks
/// (its form, and whether FCM knows it) run for every body.
///
/// A plain value, owned by one connection (its handler, on its event loop): no lock.
public struct FCMBodyMemo: Sendable {
    /// What the memo knows of a body.
    enum Lookup {
        /// The template's message, trusted, with this body's target.
        case known(ValidatedFCMMessage)
        /// The message the body should read as, if the template holds: read it and confirm.
        case expected(ValidatedFCMMessage)
        /// Not the template's shape: read it.
        case unknown
    }

    private struct Template {
        var body: [UInt8]
        /// Where the target's value starts and ends (its quotes excluded).
        var valueStart: Int
        var valueEnd: Int
        var message: ValidatedFCMMessage
        var trusted = false
    }

    private static let tokenPrefix = Array(#"{"message":{"token":""#.utf8)
    private static let fidPrefix = Array(#"{"message":{"fid":""#.utf8)

    private var template: Template?

    /// A memo that knows no body yet.
    public init() {}

    /// Whether the memo answers bodies without reading them.
    public var isTrusted: Bool { template?.trusted ?? false }

    func message(for body: [UInt8], project: String) -> Lookup {
        guard let template, let value = Self.value(in: body, like: template) else { return .unknown }
        var message = template.message
        message.project = project
        switch message.recipient {
        case .token: message.recipient = .token(value)
        case .fid: message.recipient = .fid(value)
        case .topic, .condition: return .unknown
        }
        return template.trusted ? .known(message) : .expected(message)
    }

    /// Whether the body the memo expected read as expected; if not, the memo forgets its template.
    mutating func confirm(_ held: Bool) {
        if held { template?.trusted = true } else { template = nil }
    }

    /// Keeps `body`, read as `message`, as the template when it has the shape (else forgets).
    mutating func remember(_ body: [UInt8], _ message: ValidatedFCMMessage) {
        template = nil
        let prefix: [UInt8]
        let target: String
        switch message.recipient {
        case .token(let value): (prefix, target) = (Self.tokenPrefix, value)
        case .fid(let value): (prefix, target) = (Self.fidPrefix, value)
        case .topic, .condition: return
        }
        guard body.count > prefix.count, body.starts(with: prefix) else { return }
        var end = prefix.count
        while end < body.count, Self.isPlain(body[end]) { end += 1 }
        guard end < body.count, body[end] == UInt8(ascii: "\""), body[prefix.count..<end].elementsEqual(target.utf8)
        else { return }
        template = Template(body: body, valueStart: prefix.count, valueEnd: end, message: message)
    }

    /// The target of `body` when it is `template`'s body with another plain target; else nil.
    private static func value(in body: [UInt8], like template: Template) -> String? {
        let suffixCount = template.body.count - template.valueEnd
        let valueEnd = body.count - suffixCount
        guard valueEnd > template.valueStart else { return nil }
        return body.withUnsafeBufferPointer { new in
            template.body.withUnsafeBufferPointer { old in
                guard new[..<template.valueStart].elementsEqual(old[..<template.valueStart]),
                    new[valueEnd...].elementsEqual(old[template.valueEnd...])
                else { return nil }
                let value = new[template.valueStart..<valueEnd]
                guard value.allSatisfy(isPlain) else { return nil }
                return String(decoding: value, as: UTF8.self)
            }
        }
    }

    /// A byte a JSON string holds as itself: printable ASCII, not a quote or a backslash.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }
}
