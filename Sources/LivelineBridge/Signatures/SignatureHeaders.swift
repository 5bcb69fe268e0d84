import HTTPTypes

extension HTTPField.Name {
    /// A header name from configuration; an invalid name is a configuration error.
    static func configured(_ name: String, setting: String) throws(WebhookConfigurationError) -> HTTPField.Name {
        guard let field = HTTPField.Name(name) else {
            throw WebhookConfigurationError("\(setting): \"\(name)\" is not a valid header name")
        }
        return field
    }
}

extension HTTPFields {
    /// The header's value (several field lines joined by ", "), or a 400 naming it.
    func required(_ name: HTTPField.Name) throws(WebhookVerificationError) -> String {
        guard let value = self[name] else { throw .missingHeader(name.rawName) }
        return value
    }
}

extension Substring.UTF8View {
    /// Whether these bytes start with `prefix`, ignoring ASCII case (`sha256=`, `Bearer `).
    func hasCaseInsensitivePrefix(_ prefix: String) -> Bool {
        var bytes = makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next(), Self.lowercased(byte) == Self.lowercased(expected) else { return false }
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (optional whitespace around list items).
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

extension Substring {
    /// Calls `body` with each non-empty item between `separator`s, without building an array.
    func forEachItem(separatedBy separator: Character, _ body: (Substring) -> Void) {
        var rest = self
        while !rest.isEmpty {
            let end = rest.firstIndex(of: separator) ?? rest.endIndex
            let item = rest[rest.startIndex..<end]
            if !item.isEmpty { body(item) }
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        }
    }
}
