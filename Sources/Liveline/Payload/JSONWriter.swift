/// Appends JSON tokens to a byte buffer.
///
/// This is the payload encoder's hot path: it writes UTF-8 bytes directly, with no `String`
/// building, no `JSONSerialization` and no intermediate dictionaries. The caller owns the buffer
/// and can reuse its capacity across pushes.
public struct JSONWriter {
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

    /// Writes a number: integral values without a fraction, others in Swift's shortest form.
    public mutating func double(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 9e15 {
            int(Int64(value))
        } else if value.isFinite {
            bytes.append(contentsOf: value.description.utf8)
        } else {
            raw("null")
        }
    }

    /// Writes milliseconds as seconds: `1700000000` or `1700000000.25`.
    public mutating func seconds(millis: Millis) {
        let whole = millis / 1000
        var fraction = millis % 1000
        if fraction < 0 {
            int(whole == 0 ? 0 : whole)
            if whole == 0 { bytes.insert(UInt8(ascii: "-"), at: bytes.count - 1) }
            fraction = -fraction
        } else {
            int(whole)
        }
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var digits = [48 + UInt8(fraction / 100), 48 + UInt8((fraction / 10) % 10), 48 + UInt8(fraction % 10)]
        while digits.last == 48 { digits.removeLast() }
        bytes.append(contentsOf: digits)
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
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
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
            for (i, item) in items.enumerated() {
                if i > 0 { raw(UInt8(ascii: ",")) }
                self.value(item)
            }
            raw(UInt8(ascii: "]"))
        case .object(let object): self.object(object)
        }
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
