/// HPACK's static Huffman code (RFC 7541 §5.2, Appendix B), decoding side.
///
/// The code is canonical: within one length, codes are consecutive in symbol order, and each
/// length's first code follows the previous length's last. So the 257 code lengths below are the
/// whole table; the codes are derived from them. Decoding looks the next 9 bits up in a 512-entry
/// table, which settles every symbol of 9 bits or fewer (all letters, digits and the usual
/// punctuation of paths, tokens and base64) in one step; longer codes are found by length.
///
/// **Why not swift-nio-http2's decoder.** It walks a 4-bit state machine, two table steps per
/// input byte, then builds the string; measured on the mock, decoding each request's `:path`
/// and `authorization` that way was 13% of a request's instructions.
enum HPACKHuffman {
    /// The code length of each symbol, 0...255 and EOS (256), from RFC 7541 Appendix B.
    static let codeLengths: [UInt8] = [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28,
        28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23,
        22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22,
        23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26,
        28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27,
        27, 27, 27, 26,
        30,
    ]

    /// The end-of-string symbol; decoding it is an error (§5.2).
    static let eos = 256
    /// How many bits the first lookup takes.
    static let lookupBits = 9
    static let longestCode = 30

    /// The derived tables, built once.
    struct Tables {
        /// Indexed by the next ``lookupBits`` bits: `symbol << 4 | length` for codes of at most
        /// that length, 0 when the code is longer.
        var lookup: [UInt16]
        /// Per length: the first code, how many codes, and where their symbols start in `symbols`.
        var firstCode: [UInt32]
        var count: [UInt32]
        var offset: [Int]
        /// Symbols ordered by (length, symbol): the canonical order.
        var symbols: [UInt16]
        /// Each symbol's code, right-aligned (for tests and encoders).
        var codes: [UInt32]
    }

    static let tables: Tables = {
        let longest = longestCode
        var count = [UInt32](repeating: 0, count: longest + 1)
        for length in codeLengths { count[Int(length)] += 1 }
        var firstCode = [UInt32](repeating: 0, count: longest + 1)
        var offset = [Int](repeating: 0, count: longest + 1)
        var code: UInt32 = 0
        var position = 0
        for length in 1...longest {
            firstCode[length] = code
            offset[length] = position
            code = (code + count[length]) << 1
            position += Int(count[length])
        }
        var symbols = [UInt16](repeating: 0, count: codeLengths.count)
        var codes = [UInt32](repeating: 0, count: codeLengths.count)
        var next = firstCode
        var filled = offset
        for length in 1...longest {
            for symbol in codeLengths.indices where Int(codeLengths[symbol]) == length {
                codes[symbol] = next[length]
                next[length] += 1
                symbols[filled[length]] = UInt16(symbol)
                filled[length] += 1
            }
        }
        var lookup = [UInt16](repeating: 0, count: 1 << lookupBits)
        for symbol in codeLengths.indices where Int(codeLengths[symbol]) <= lookupBits {
            let length = Int(codeLengths[symbol])
            let spread = lookupBits - length
            let base = Int(codes[symbol]) << spread
            for index in base..<(base + (1 << spread)) {
                lookup[index] = UInt16(symbol) << 4 | UInt16(length)
            }
        }
        return Tables(
            lookup: lookup, firstCode: firstCode, count: count, offset: offset, symbols: symbols, codes: codes)
    }()

    /// The most bytes `encodedCount` bytes can decode to (the shortest code is 5 bits).
    static func maxDecodedCount(_ encodedCount: Int) -> Int {
        encodedCount * 8 / 5 + 1
    }

    /// Decodes `input` into `output` (at least ``maxDecodedCount(_:)`` bytes); returns how many
    /// bytes it wrote, or nil when the input is not a valid encoding: a code that runs past the
    /// end, EOS, or padding longer than 7 bits or not all ones (§5.2).
    static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        let tables = Self.tables
        return tables.lookup.withUnsafeBufferPointer { lookup -> Int? in
            // Bits are kept left-aligned in `bits`: the next one is the most significant.
            var bits: UInt64 = 0
            var available = 0
            var next = 0
            var written = 0
            while true {
                while available <= 56, next < input.count {
                    bits |= UInt64(input[next]) << UInt64(56 - available)
                    next += 1
                    available += 8
                }
                if available == 0 { return written }
                var length: Int
                var symbol: Int
                let entry = lookup[Int(truncatingIfNeeded: bits >> UInt64(64 - lookupBits))]
                if entry != 0 {
                    length = Int(entry & 0xF)
                    symbol = Int(entry >> 4)
                } else {
                    length = lookupBits + 1
                    symbol = -1
                    while length <= longestCode {
                        let code = UInt32(truncatingIfNeeded: bits >> UInt64(64 - length))
                        let index = code &- tables.firstCode[length]
                        if code >= tables.firstCode[length], index < tables.count[length] {
                            symbol = Int(tables.symbols[tables.offset[length] + Int(index)])
                            break
                        }
                        length += 1
                    }
                    // The code is complete (every bit string starts with a code), so a symbol is
                    // always found; the guard keeps a corrupt table from looping.
                    guard symbol >= 0 else { return nil }
                }
                if length > available {
                    // The rest must be padding: fewer than 8 bits, all ones (a prefix of EOS).
                    // No code of 7 bits or fewer is all ones, so a real symbol never ends here.
                    guard available <= 7, bits >> UInt64(64 - available) == (UInt64(1) << UInt64(available)) - 1 else {
                        return nil
                    }
                    return written
                }
                guard symbol != eos else { return nil }
                output[written] = UInt8(truncatingIfNeeded: symbol)
                written += 1
                bits <<= UInt64(length)
                available -= length
            }
        }
    }
}
