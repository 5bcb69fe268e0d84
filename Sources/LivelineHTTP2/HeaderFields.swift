/// A decoded header block: its fields in the order they were sent, repeated names included.
///
/// Its accessors are inlinable: the mock reads every field of every request, and through a
/// generic collection's witness table across modules that cost more than the reading.
package struct HeaderFields: RandomAccessCollection, Sendable {
    package typealias Element = (name: String, value: String)

    /// One field. A struct, not a tuple: an array of tuples is torn down through the runtime's
    /// generic tuple witness, an element at a time, which showed in the mock's profile.
    @usableFromInline struct Field: Sendable {
        @usableFromInline var name: String
        @usableFromInline var value: String

        @usableFromInline init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    @usableFromInline var fields: [Field] = []

    package init() {}

    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { fields.count }

    @inlinable package subscript(position: Int) -> Element {
        (fields[position].name, fields[position].value)
    }

    package mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    package mutating func append(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// The value of the first field named `name`, compared without regard to ASCII case.
    package func first(name: String) -> String? {
        var wanted = name
        return wanted.withUTF8 { wanted in
            for field in fields {
                var candidate = field.name
                let matches = candidate.withUTF8 { candidate in
                    guard candidate.count == wanted.count else { return false }
                    for offset in 0..<candidate.count
                    where Self.lowercased(candidate[offset]) != Self.lowercased(wanted[offset]) {
                        return false
                    }
                    return true
                }
                if matches { return field.value }
            }
            return nil
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte | 0x20 : byte
    }
}
