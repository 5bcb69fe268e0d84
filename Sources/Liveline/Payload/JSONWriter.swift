/// Appends JSON tokens to a byte buffer.
///
/// This is the payload encoder's hot path: it writes UTF-8 bytes directly, with no `String`
/// building, no `JSONSerialization` and no intermediate dictionaries. The caller owns the buffer
/// and can reuse its capacity across pushes.
public struct JSONWriter: Sendable {
    public var bytes: [UInt8]

    public init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable
    public mutating func raw(_ byte: UInt8) { bytes.append(byte) }

    /// Appends ASCII text that needs no escaping (keys known at compile time, punctuation).
    @inlinable
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `"key":`.
    @inlinable
    public mutating func key(_ text: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func int(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            if value == .min {
                raw("9223372036854775808")
                return
            }
            uint(UInt64(-value))
        } else {
            uint(UInt64(value))
        }
    }

    @inlinable
    public mutating func int(_ value: Int) { int(Int64(value)) }

    public mutating func uint(_ value: UInt64) {
        if value < 10 {
            bytes.append(48 + UInt8(value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[19 - count] = 48 + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// Writes a `Double` so that it reads back as one: `0.0`, `0.15`, `1e-05`.
    ///
    /// An integral value keeps its `.0`, so a field the app declares as `Double` never looks
    /// like an integer to anyone checking types (the mock APNs does). Non-finite values have no
    /// JSON form and become `null`.
    public mutating func double(_ value: Double) {
        guard value.isFinite else {
            raw("null")
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            int(Int64(value))
            raw(".0")
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// Writes a number as compactly as JSON allows: `100`, `0.5`. For `relevance-score`.
    public mutating func number(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            int(Int64(value))
        } else {
            double(value)
        }
    }

    /// Appends bytes prepared earlier, such as a pre-encoded `"key":`.
    @inlinable
    public mutating func raw(_ prepared: [UInt8]) {
        bytes.append(contentsOf: prepared)
    }

    /// Writes milliseconds as seconds: `1700000000` or `1700000000.25`.
    public mutating func seconds(millis: Millis) {
        var magnitude = millis
        if millis < 0 {
            bytes.append(UInt8(ascii: "-"))
            magnitude = 0 &- millis
        }
        uint(UInt64(magnitude / 1000))
        let fraction = magnitude % 1000
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        bytes.append(48 + UInt8(fraction / 100))
        if fraction % 100 != 0 {
            bytes.append(48 + UInt8((fraction / 10) % 10))
            if fraction % 10 != 0 { bytes.append(48 + UInt8(fraction % 10)) }
        }
    }

    /// Writes a JSON string with the escapes RFC 8259 requires; other UTF-8 passes through.
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for i in 0..<utf8.count {
                let byte = utf8[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
                escape(byte)
                runStart = i + 1
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 48 + nibble : 87 + nibble }
            bytes.append(UInt8(ascii: "u"))
            bytes.append(48)
            bytes.append(48)
            bytes.append(hex(byte >> 4))
            bytes.append(hex(byte & 0xF))
        }
    }

    /// Writes a content-state value. Dates become reference-date seconds (see ``ReferenceDate``).
    public mutating func value(_ value: StateValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): b ? raw("true") : raw("false")
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .date(let unix): seconds(millis: ReferenceDate.millis(fromUnix: unix))
        case .dateRange(let lower, let upper):
            raw(UInt8(ascii: "["))
            seconds(millis: ReferenceDate.millis(fromUnix: lower))
            raw(UInt8(ascii: ","))
            seconds(millis: ReferenceDate.millis(fromUnix: upper))
            raw(UInt8(ascii: "]"))
        case .array(let items):
            raw(UInt8(ascii: "["))
            for i in items.indices {
                if i > 0 { raw(UInt8(ascii: ",")) }
                self.value(items[i])
            }
            raw(UInt8(ascii: "]"))
        case .object(let object): self.object(object)
        }
    }

    /// Writes an object whose top-level keys were encoded once, ahead of time, as `"key":`.
    /// The hot path: content-state keys never change after the first state.
    public mutating func object(_ object: StateObject, encodedKeys: [[UInt8]]) {
        raw(UInt8(ascii: "{"))
        for i in 0..<object.count {
            if i > 0 { raw(UInt8(ascii: ",")) }
            if i < encodedKeys.count {
                raw(encodedKeys[i])
            } else {
                string(object.keys[i])
                raw(UInt8(ascii: ":"))
            }
            value(object.values[i])
        }
        raw(UInt8(ascii: "}"))
    }

    /// `"key":` as bytes, for ``object(_:encodedKeys:)``.
    public static func encodedKey(_ key: String) -> [UInt8] {
        var writer = JSONWriter(capacity: key.utf8.count + 3)
        writer.string(key)
        writer.raw(UInt8(ascii: ":"))
        return writer.bytes
    }

    /// Writes an object with its keys in their written order.
    public mutating func object(_ object: StateObject) {
        raw(UInt8(ascii: "{"))
        for i in 0..<object.count {
            if i > 0 { raw(UInt8(ascii: ",")) }
            string(object.keys[i])
            raw(UInt8(ascii: ":"))
            value(object.values[i])
        }
        raw(UInt8(ascii: "}"))
    }
}
