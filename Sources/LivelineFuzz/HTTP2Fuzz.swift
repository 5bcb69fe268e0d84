import LivelineHTTP2
import NIOCore
import NIOHPACK

extension FuzzTarget {
    /// The shared HTTP/2 core, as a server (after the client preface) or as a client, fed a byte
    /// stream in pieces; every event is taken until the core has none or stops with an error.
    static let http2Core = FuzzTarget(name: "http2-core", summary: "the HTTP/2 connection core, either side, bytes in pieces") { bytes in
        let (side, rest) = bytes.choice(of: 2)
        var settings = ConnectionSettings()
        settings.maxConcurrentStreams = 100
        var core = HTTP2ConnectionCore(role: side == 0 ? .server : .client, settings: settings, connectionWindow: 1 << 20)
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
    /// over), with the header list limit the connections use. Each block is length-prefixed by a byte.
    static let hpack = FuzzTarget(name: "hpack", summary: "HPACK header blocks on one decoder, the connections' list limit") { bytes in
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 4096)
        decoder.maxHeaderListSize = 16_384
        var offset = 0
        while offset < bytes.count {
            let size = Int(bytes[offset])
            let end = min(bytes.count, offset + 1 + size)
            var block = ByteBuffer(bytes: bytes[min(end, offset + 1)..<end])
            offset = end
            guard (try? decoder.decodeHeaders(from: &block)) != nil else { return false }
        }
        return !bytes.isEmpty
    }
}
