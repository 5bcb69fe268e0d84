import LivelineHTTP2
import NIOCore
import NIOHPACK

/// Builds frames byte by byte, as a peer would send them, including broken ones.
enum Wire {
    static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8] = []) -> ByteBuffer {
        var out = ByteBuffer()
        out.writeInteger(UInt8(truncatingIfNeeded: payload.count >> 16))
        out.writeInteger(UInt16(truncatingIfNeeded: payload.count))
        out.writeInteger(type)
        out.writeInteger(flags)
        out.writeInteger(stream)
        out.writeBytes(payload)
        return out
    }

    static func frame(
        _ type: HTTP2Wire.FrameType, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8] = []
    ) -> ByteBuffer {
        frame(type.rawValue, flags: flags, stream: stream, payload)
    }

    static func settings(_ values: [(UInt16, UInt32)] = [], stream: UInt32 = 0) -> ByteBuffer {
        var payload = ByteBuffer()
        for (id, value) in values {
            payload.writeInteger(id)
            payload.writeInteger(value)
        }
        return frame(.settings, stream: stream, Array(payload.readableBytesView))
    }

    static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func windowUpdate(stream: UInt32, _ increment: UInt32) -> ByteBuffer {
        frame(.windowUpdate, stream: stream, u32(increment))
    }

    /// An HPACK block for a request (or, with `status`, a response).
    static func block(path: String = "/3/device/abc", status: String? = nil) -> [UInt8] {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: false)
        let headers: HPACKHeaders =
            status.map { [":status": $0] }
            ?? [
                ":method": "POST", ":scheme": "http", ":authority": "127.0.0.1", ":path": path,
                "apns-topic": "com.example",
            ]
        var out = ByteBuffer()
        try? encoder.encode(headers: headers, to: &out)
        return Array(out.readableBytesView)
    }

    static func headers(
        stream: UInt32, endStream: Bool = false, endHeaders: Bool = true, _ block: [UInt8] = Wire.block()
    ) -> ByteBuffer {
        let flags = (endStream ? HTTP2Wire.Flags.endStream : 0) | (endHeaders ? HTTP2Wire.Flags.endHeaders : 0)
        return frame(.headers, flags: flags, stream: stream, block)
    }

    static func data(stream: UInt32, _ bytes: [UInt8], endStream: Bool = false) -> ByteBuffer {
        frame(.data, flags: endStream ? HTTP2Wire.Flags.endStream : 0, stream: stream, bytes)
    }
}

/// One side of a connection under test: a core, what it sent, and the events it reported.
struct Endpoint {
    var core: HTTP2ConnectionCore
    var out = ByteBuffer()

    /// A server that has read the preface and an empty SETTINGS, or a client that has read the
    /// server's SETTINGS. What it sent so far is discarded.
    init(
        _ role: HTTP2ConnectionCore.Role, settings: ConnectionSettings = ConnectionSettings(),
        connectionWindow: Int = HTTP2Wire.defaultWindow
    ) throws {
        core = HTTP2ConnectionCore(role: role, settings: settings, connectionWindow: connectionWindow)
        core.start(into: &out)
        var opening = role == .server ? ByteBuffer(bytes: HTTP2Wire.preface) : ByteBuffer()
        var empty = Wire.settings()
        opening.writeBuffer(&empty)
        _ = try receive(opening)
        out.clear()
    }

    /// Feeds bytes; returns the events.
    mutating func receive(_ bytes: ByteBuffer...) throws(HTTP2ProtocolError) -> [HTTP2Event] {
        var events: [HTTP2Event] = []
        for chunk in bytes {
            core.append(chunk)
            while let event = try core.nextEvent(into: &out) { events.append(event) }
        }
        return events
    }

    /// The error thrown by feeding `bytes`, if any.
    mutating func error(_ bytes: ByteBuffer...) -> HTTP2ProtocolError? {
        do {
            for chunk in bytes {
                core.append(chunk)
                while try core.nextEvent(into: &out) != nil {}
            }
            return nil
        } catch {
            return error
        }
    }

    /// Opens a stream of ours.
    mutating func openStream() throws -> UInt32 {
        guard let streamID = core.openStream() else { throw HTTP2ProtocolError(.internalError, "stream ids ran out") }
        return streamID
    }

    /// The frames sent since the last call.
    mutating func sent() -> [InboundFrame] {
        var reader = FrameReader(expectingPreface: false)
        reader.append(out)
        out.clear()
        var frames: [InboundFrame] = []
        while let frame = try? reader.next() { frames.append(frame) }
        return frames
    }
}

extension InboundFrame {
    var kind: HTTP2Wire.FrameType? { HTTP2Wire.FrameType(rawValue: type) }
    /// The first four payload bytes as a number (RST_STREAM's code, WINDOW_UPDATE's increment).
    var firstWord: UInt32? { payload.getInteger(at: payload.readerIndex, as: UInt32.self) }
}
