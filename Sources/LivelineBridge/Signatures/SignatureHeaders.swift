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
        let utf8 = self.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) })
        else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}

extension Substring {
    /// Calls `body` with each non-empty item between `separator`s (an ASCII character), without
    /// building an array. It scans bytes: a grapheme-aware search of every webhook's signature
    /// header cost more than checking the signature.
    func forEachItem(separatedBy separator: Character, _ body: (Substring) -> Void) {
        guard let byte = separator.asciiValue else { return }
        let utf8 = self.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == byte {
                if start != index { body(self[start..<index]) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != utf8.endIndex { body(self[start..<utf8.endIndex]) }
    }
}
