import LivelineHTTP2
import NIOCore
import NIOHPACK

extension FuzzTarget {
    /// The shared HTTP/2 core, as a server (after the client preface) or as a client, fed a byte
    /// stream in pieces; every event is taken until the core has none or stops with an error.
    static let http2Core = FuzzTarget(
        name: "http2-core", summary: "the HTTP/2 connection core, either side, bytes in pieces"
    ) { bytes in
        let (side, rest) = bytes.choice(of: 2)
        var settings = ConnectionSettings()
        settings.maxConcurrentStreams = 100
        var core = HTTP2ConnectionCore(
            role: side == 0 ? .server : .client, settings: settings, connectionWindow: 1 << 20)
        var out = ByteBufferAllocator().buffer(capacity: 1024)
        core.start(into: &out)
        if side == 1 { _ = core.openStream(); _ = core.openStream() }
        var events = 0
        // Pieces of 1 to 64 bytes, their sizes drawn from the input, so frames straddle reads.
        var offset = 0
        while offset < rest.count {
            let size = 1 + Int(rest[offset]) % 64
            let end = min(rest.count, offset + 1 + size)
            guard offset + 1 < end else { break }
            core.append(ByteBuffer(bytes: rest[(offset + 1)..<end]))
            offset = end
            do {
                while try core.nextEvent(into: &out) != nil {
                    events += 1
                    out.clear()
                }
            } catch {
                return false
            }
        }
        return events > 0
    }

    /// HPACK header blocks, one after another on one decoder (so the dynamic table carries
    /// over), with the header list limit the connections use. Each block is length-prefixed by a
    /// byte. The connections' decoder (``HeaderBlockDecoder``) and swift-nio-http2's must agree
    /// on every block: refused or not, and the fields. They differ on purpose only for strings
    /// that are not UTF-8, whose sizes the connections' decoder counts in octets as sent (RFC
    /// 7541 §4.1) and swift-nio-http2's after repair; the comparison stops at the first one.
    static let hpack = FuzzTarget(
        name: "hpack", summary: "HPACK header blocks, the connections' decoder against swift-nio-http2's"
    ) { bytes in
        var reference = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 4096)
        reference.maxHeaderListSize = 16_384
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        var comparing = true
        var offset = 0
        while offset < bytes.count {
            let size = Int(bytes[offset])
            let end = min(bytes.count, offset + 1 + size)
            let block = ByteBuffer(bytes: bytes[min(end, offset + 1)..<end])
            offset = end
            let decoded = try? decoder.decode(block)
            if comparing {
                var copy = block
                let expected = try? reference.decodeHeaders(from: &copy)
                let repaired = [decoded.map { Array($0) }, expected.map { $0.map { ($0.name, $0.value) } }].contains {
                    $0?.contains { $0.0.contains("\u{FFFD}") || $0.1.contains("\u{FFFD}") } == true
                }
                if repaired {
                    comparing = false
                } else {
                    switch (decoded, expected) {
                    case (nil, nil): break
                    case (let decoded?, let expected?):
                        let mine = decoded.map { "\($0.name): \($0.value)" }
                        let theirs = expected.map { "\($0.name): \($0.value)" }
                        precondition(mine == theirs, "the decoders disagree on a block: \(mine) against \(theirs)")
                    case (nil, _?):
                        preconditionFailure("the connections' HPACK decoder refuses a block swift-nio-http2's accepts")
                    case (_?, nil):
                        preconditionFailure("the connections' HPACK decoder accepts a block swift-nio-http2's refuses")
                    }
                }
            }
            guard decoded != nil else { return false }
        }
        return !bytes.isEmpty
    }
}
