/// Writes JSON tokens into a growable byte buffer.
///
/// This is the payload encoder's hot path. It writes UTF-8 straight into raw memory: no
/// `String` building, no `JSONSerialization`, no intermediate dictionaries, and no per-byte
/// checks. Each token checks capacity once, then stores its bytes through a pointer.
///
/// A writer is non-copyable: it has exactly one owner, which is what lets it skip
/// copy-on-write checks (and what makes it safe to send to another task). Reuse one across
/// pushes with ``reset()`` to keep its capacity; ``bytes`` copies the written bytes out.
public struct JSONWriter: ~Copyable, @unchecked Sendable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var written = 0

    /// A writer whose buffer starts with room for `capacity` bytes (at least 64) and grows as needed.
    public init(capacity: Int = 512) {
        self.capacity = max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The number of bytes written.
    public var count: Int { written }

    /// A copy of the bytes written.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: written)) }

    /// Calls `body` with the bytes written, without copying them.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: written))
    }

    /// Forgets what was written, keeping the capacity.
    public mutating func reset() { written = 0 }

    /// Room for `bytes` more bytes: returns where to write them. The caller then calls
    /// ``commit(_:)`` with the number actually written.
    @inlinable
    mutating func reserve(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        if written + bytes > capacity { grow(toHold: written + bytes) }
        return base + written
    }

    @inlinable
    mutating func commit(_ bytes: Int) { written += bytes }

    /// Moves to an allocation of at least `needed` bytes, doubling.
    @usableFromInline
    mutating func grow(toHold needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        fresh.update(from: base, count: written)
        base.deallocate()
        base = fresh
        capacity = newCapacity
    }

    // MARK: Raw bytes

    /// Appends one byte as it is (punctuation).
    @inlinable
    public mutating func raw(_ byte: UInt8) {
        reserve(1).pointee = byte
        commit(1)
    }

    /// Appends ASCII text that needs no escaping (keys known at compile time, punctuation).
    @inlinable
    public mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        reserve(count).update(from: text.utf8Start, count: count)
        commit(count)
    }

    /// Appends bytes prepared earlier, such as a pre-encoded `"key":` or a whole payload.
    @inlinable
    public mutating func raw(_ prepared: [UInt8]) {
        let count = prepared.count
        let target = reserve(count)
        prepared.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { target.update(from: base, count: count) }
        }
        commit(count)
    }

    /// Appends `"key":`.
    @inlinable
    public mutating func key(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        let target = reserve(count + 3)
        target[0] = UInt8(ascii: "\"")
        (target + 1).update(from: text.utf8Start, count: count)
        target[count + 1] = UInt8(ascii: "\"")
        target[count + 2] = UInt8(ascii: ":")
        commit(count + 3)
    }

    // MARK: Numbers

    /// Appends `value` in decimal.
    public mutating func int(_ value: Int64) {
        if value < 0 {
            let target = reserve(20)
            target.pointee = UInt8(ascii: "-")
            commit(1 + Self.writeDigits(value.magnitude, to: target + 1))
        } else {
            let target = reserve(20)
            commit(Self.writeDigits(UInt64(value), to: target))
        }
    }

    /// Appends `value` in decimal.
    @inlinable
    public mutating func int(_ value: Int) { int(Int64(value)) }

    /// Appends `value` in decimal.
    public mutating func uint(_ value: UInt64) {
        commit(Self.writeDigits(value, to: reserve(20)))
    }

    /// Writes the decimal digits of `value` at `target`; returns how many.
    ///
    /// Two digits per division, from a 200-byte table: half the divisions of the schoolbook loop.
    @usableFromInline
    static func writeDigits(_ value: UInt64, to target: UnsafeMutablePointer<UInt8>) -> Int {
        let length = digitCount(value)
        var rest = value
        var i = length
        return digitPairs.withUTF8Buffer { pairs in
            while rest >= 100 {
                let pair = Int(rest % 100) * 2
                rest /= 100
                i -= 2
                target[i] = pairs[pair]
                target[i + 1] = pairs[pair + 1]
            }
            if rest >= 10 {
                let pair = Int(rest) * 2
                target[0] = pairs[pair]
                target[1] = pairs[pair + 1]
            } else {
                target[0] = 48 + UInt8(truncatingIfNeeded: rest)
            }
            return length
        }
    }

    @usableFromInline
    static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// How many decimal digits `value` has.
    @usableFromInline
    static func digitCount(_ value: UInt64) -> Int {
        var count = 1
        var threshold: UInt64 = 10
        while value >= threshold {
            count += 1
            if count == 20 { break }
            threshold &*= 10
        }
        return count
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
            var text = value.description
            text.withUTF8 { utf8 in
                let target = reserve(utf8.count)
                if let base = utf8.baseAddress { target.update(from: base, count: utf8.count) }
                commit(utf8.count)
            }
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

    /// Writes milliseconds as seconds: `1700000000` or `1700000000.25`.
    public mutating func seconds(millis: Millis) {
        let target = reserve(25)
        var length = 0
        var magnitude = millis.magnitude
        if millis < 0 {
            target.pointee = UInt8(ascii: "-")
            length = 1
        }
        length += Self.writeDigits(magnitude / 1000, to: target + length)
        magnitude %= 1000
        if magnitude != 0 {
            target[length] = UInt8(ascii: ".")
            target[length + 1] = 48 + UInt8(magnitude / 100)
            length += 2
            if magnitude % 100 != 0 {
                target[length] = 48 + UInt8((magnitude / 10) % 10)
                length += 1
                if magnitude % 10 != 0 {
                    target[length] = 48 + UInt8(magnitude % 10)
                    length += 1
                }
            }
        }
        commit(length)
    }

    // MARK: Strings

    /// Writes a JSON string with the escapes RFC 8259 requires; other UTF-8 passes through.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // Most strings need no escapes: copy them in one go.
            var clean = true
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                clean = false
                break
            }
            if clean {
                let target = reserve(utf8.count + 2)
                target[0] = UInt8(ascii: "\"")
                if let base = utf8.baseAddress { (target + 1).update(from: base, count: utf8.count) }
                target[utf8.count + 1] = UInt8(ascii: "\"")
                commit(utf8.count + 2)
            } else {
                escaped(utf8)
            }
        }
    }

    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Each byte becomes at most six (\u00XX).
        let target = reserve(utf8.count * 6 + 2)
        var length = 1
        target[0] = UInt8(ascii: "\"")
        func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 48 + nibble : 87 + nibble }
        for byte in utf8 {
            let escape: UInt8
            switch byte {
            case UInt8(ascii: "\""): escape = UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
            case 0x0A: escape = UInt8(ascii: "n")
            case 0x0D: escape = UInt8(ascii: "r")
            case 0x09: escape = UInt8(ascii: "t")
            case 0x08: escape = UInt8(ascii: "b")
            case 0x0C: escape = UInt8(ascii: "f")
            case 0..<0x20:
                target[length] = UInt8(ascii: "\\")
                target[length + 1] = UInt8(ascii: "u")
                target[length + 2] = 48
                target[length + 3] = 48
                target[length + 4] = hex(byte >> 4)
                target[length + 5] = hex(byte & 0xF)
                length += 6
                continue
            default:
                target[length] = byte
                length += 1
                continue
            }
            target[length] = UInt8(ascii: "\\")
            target[length + 1] = escape
            length += 2
        }
        target[length] = UInt8(ascii: "\"")
        commit(length + 1)
    }

    // MARK: Values

    /// Writes a content-state value. Dates become reference-date seconds (see ``ReferenceDate``).
    public mutating func value(_ value: StateValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): b ? raw("true") : raw("false")
        case .int(let i):
            let target = reserve(21)
            if i < 0 {
                target.pointee = UInt8(ascii: "-")
                commit(1 + Self.writeDigits(UInt64(i.magnitude), to: target + 1))
            } else {
                commit(Self.writeDigits(UInt64(i), to: target))
            }
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

    /// Writes an object whose top-level keys were encoded once, ahead of time, with their
    /// separators (`{"minute":`, `,"phase":`). The hot path: content-state keys never change
    /// after the first state.
    public mutating func object(_ object: StateObject, encodedKeys: EncodedKeys) {
        let values = object.values
        guard encodedKeys.count == values.count, !values.isEmpty else {
            self.object(object)
            return
        }
        encodedKeys.blob.withUnsafeBufferPointer { blob in
            guard let keys = blob.baseAddress else { return }
            var start = 0
            for i in values.indices {
                let end = encodedKeys.ends[i]
                let length = end - start
                let target = reserve(length)
                for j in 0..<length { target[j] = keys[start + j] }
                commit(length)
                start = end
                value(values[i])
            }
        }
        raw(UInt8(ascii: "}"))
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

/// An object's keys encoded once with their separators, `{"a":` then `,"b":`, in one buffer,
/// for ``JSONWriter/object(_:encodedKeys:)``.
///
/// One contiguous allocation, shared by every engine playing the same activity, so writing a
/// key copies bytes without touching a reference count per key.
public struct EncodedKeys: Sendable {
    @usableFromInline let blob: [UInt8]
    /// Where each key's bytes end in `blob`.
    @usableFromInline let ends: [Int]

    /// The encoded `"key":` forms of `keys`, in their order.
    public init(_ keys: [String]) {
        var writer = JSONWriter(capacity: 64)
        var ends: [Int] = []
        for (i, key) in keys.enumerated() {
            writer.raw(i == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
            writer.string(key)
            writer.raw(UInt8(ascii: ":"))
            ends.append(writer.count)
        }
        blob = writer.bytes
        self.ends = ends
    }

    /// How many keys there are.
    public var count: Int { ends.count }
}
