/// The `data` of an FCM message: string keys to string values, in the order they are written.
///
/// FCM takes at most ``limit`` bytes of keys and values in one message; ``byteCount`` counts
/// them as FCM does, in UTF-8.
public struct FCMData: Sendable, Hashable {
    /// The keys and values, in the order they are written (and sent).
    public private(set) var entries: [(key: String, value: String)]

    /// The most bytes of keys and values FCM takes in a data message.
    public static let limit = 4096

    /// Data with `entries`, in their order; empty by default.
    public init(_ entries: [(key: String, value: String)] = []) {
        self.entries = entries
    }

    /// Adds `key` with `value` after the others; a key already there is not replaced.
    public mutating func append(_ key: String, _ value: String) {
        entries.append((key, value))
    }

    /// The value of the first entry with `key`, or nil.
    public subscript(key: String) -> String? {
        entries.first { $0.key == key }?.value
    }

    /// The keys and values' UTF-8 bytes.
    public var byteCount: Int {
        entries.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// `{"key":"value",…}` into `writer`.
    public func write(into writer: inout JSONWriter) {
        writer.raw(UInt8(ascii: "{"))
        for (i, entry) in entries.enumerated() {
            if i > 0 { writer.raw(UInt8(ascii: ",")) }
            writer.string(entry.key)
            writer.raw(UInt8(ascii: ":"))
            writer.string(entry.value)
        }
        writer.raw(UInt8(ascii: "}"))
    }

    public static func == (lhs: FCMData, rhs: FCMData) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.key)
            hasher.combine(entry.value)
        }
    }
}
