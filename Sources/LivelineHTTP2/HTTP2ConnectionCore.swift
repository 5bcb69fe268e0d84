import NIOCore

/// The HTTP/2 connection state machine (RFC 9113) that the APNs client and the mock APNs share:
/// a plain value, fed bytes, that answers what the protocol answers by itself and hands the
/// rest to its owner as ``HTTP2Event``s.
///
/// It owns the preface and SETTINGS (with ACK), PING, WINDOW_UPDATE and flow control at both
/// levels in both directions, padding, HEADERS + CONTINUATION assembly and HPACK decoding,
/// RST_STREAM, GOAWAY, stream states, and the checks that each frame is of the right length on
/// the right stream. Its owner keeps only its role: the client's request queue and response
/// assembly, the mock's APNs validation and answers. Encoding header blocks stays with the
/// owner too (the client keeps a dynamic table, the mock writes literals).
///
/// What the RFC leaves open, decided once for both sides:
/// - an unknown frame type or setting is ignored; so is PRIORITY (deprecated, §5.3.2);
/// - a frame on a stream we reset is ignored (DATA still counts against the connection window);
///   DATA on another closed stream, or DATA or HEADERS after the peer's END_STREAM, is a stream
///   error STREAM_CLOSED; HEADERS on a closed stream is a connection error STREAM_CLOSED (§5.1);
/// - a new stream must have a higher id than every earlier one of the peer's, and the peer's
///   parity (odd from a client), else PROTOCOL_ERROR;
/// - a stream window pushed past 2^31-1 by WINDOW_UPDATE is a stream error, the connection
///   window or a SETTINGS_INITIAL_WINDOW_SIZE change doing so a connection error
///   (FLOW_CONTROL_ERROR, §6.9.1, §6.9.2);
/// - our receive windows are enforced, and given back once half is used;
/// - after our GOAWAY, new streams are refused with RST_STREAM REFUSED_STREAM.
///
/// Connection errors are thrown as ``HTTP2ProtocolError``; the owner answers with
/// ``goAway(_:debug:into:)`` and closes. Stream errors are answered here with RST_STREAM and
/// reported as ``HTTP2Event/streamError(_:streamID:)``.
///
/// Frames to send are appended to the owner's outbound buffer, so an event-loop turn's frames go
/// out in one write.
package struct HTTP2ConnectionCore {
    package enum Role: Sendable { case client, server }

    package let role: Role
    private var reader: FrameReader
    private var assembler: HeaderBlockAssembler
    private var decoder: HeaderBlockDecoder
    package private(set) var streams: StreamStateTable
    /// Our settings as the peer acknowledged them.
    package private(set) var localSettings = ConnectionSettings()
    /// Settings we sent that wait for an ACK, oldest first.
    private var unacknowledged: [ConnectionSettings] = []
    /// The newest settings we sent, acknowledged or not.
    private var latestLocalSettings = ConnectionSettings()
    package private(set) var peerSettings = ConnectionSettings()
    private var peerSettingsSeen = false
    private var connectionSend = FlowControlWindow(HTTP2Wire.defaultWindow)
    private var connectionReceive: FlowControlWindow
    /// Streams with body bytes waiting for credit, oldest first.
    private var blocked = CircularBuffer<UInt32>()
    /// The last stream id of the GOAWAY we sent.
    package private(set) var sentGoAway: UInt32?
    /// The highest peer stream handed to the owner and not declined, and the one before it:
    /// what our GOAWAY says we may have processed.
    private var processedPeerStreamID: UInt32 = 0
    private var previousProcessedPeerStreamID: UInt32 = 0
    package private(set) var receivedGoAway: GoAwayFrame?

    /// - Parameters:
    ///   - settings: the SETTINGS we send first.
    ///   - connectionWindow: the connection receive window we offer (a WINDOW_UPDATE raises it
    ///     from 65,535 at the start).
    ///   - maxHeaderListSize: the most a decoded header list may hold.
    ///   - cachesLiterals: whether the HPACK decoder keeps the peer's unindexed literals for
    ///     reuse (see ``HeaderBlockDecoder``); false when they never repeat.
    package init(
        role: Role, settings: ConnectionSettings, connectionWindow: Int, maxHeaderListSize: Int = 16_384,
        cachesLiterals: Bool = true
    ) {
        self.role = role
        reader = FrameReader(expectingPreface: role == .server)
        assembler = HeaderBlockAssembler(limit: 2 * maxHeaderListSize)
        decoder = HeaderBlockDecoder(
            maxTableSize: settings.headerTableSize, maxHeaderListSize: maxHeaderListSize, cachesLiterals: cachesLiterals
        )
        streams = StreamStateTable(isServer: role == .server)
        connectionReceive = FlowControlWindow(max(connectionWindow, HTTP2Wire.defaultWindow))
        latestLocalSettings = settings
        unacknowledged = [settings]
    }

    // MARK: Sending

    /// The client preface (as a client), our SETTINGS and the connection window raise.
    package func start(into out: inout ByteBuffer) {
        if role == .client { out.writeBytes(HTTP2Wire.preface) }
        HTTP2Wire.settings(latestLocalSettings.nonDefaultValues, into: &out)
        let raise = connectionReceive.advertised - HTTP2Wire.defaultWindow
        if raise > 0 { HTTP2Wire.windowUpdate(streamID: 0, increment: raise, into: &out) }
    }

    /// Sends changed settings; they apply once the peer acknowledges them.
    package mutating func sendSettings(_ values: [(HTTP2Wire.Setting, UInt32)], into out: inout ByteBuffer) {
        var next = latestLocalSettings
        for (setting, value) in values {
            try? next.apply(setting.rawValue, value, receivedByClient: false)
        }
        latestLocalSettings = next
        unacknowledged.append(next)
        HTTP2Wire.settings(values, into: &out)
    }

    /// Opens a stream of ours; nil when ids ran out. Write its HEADERS next.
    package mutating func openStream() -> UInt32? {
        streams.openLocal(
            sendWindow: peerSettings.initialWindowSize, receiveWindow: latestLocalSettings.initialWindowSize)
    }

    /// Writes a header block for an active stream as HEADERS, plus CONTINUATION frames when it is
    /// longer than the peer's frame size. `encode` appends the HPACK block. False (nothing
    /// written) when the stream is not active or our side of it has ended.
    @discardableResult
    package mutating func writeHeaders(
        streamID: UInt32, endStream: Bool, into out: inout ByteBuffer, encode: (inout ByteBuffer) -> Void
    ) -> Bool {
        guard streams.canSend(streamID) else { return false }
        let frameStart = out.writerIndex
        let flags = HTTP2Wire.Flags.endHeaders | (endStream ? HTTP2Wire.Flags.endStream : 0)
        HTTP2Wire.frameHeader(length: 0, type: .headers, flags: flags, streamID: streamID, into: &out)
        let blockStart = out.writerIndex
        encode(&out)
        let length = out.writerIndex - blockStart
        if length <= peerSettings.maxFrameSize {
            HTTP2Wire.setFrameLength(length, at: frameStart, in: &out)
        } else {
            var block = ByteBuffer(bytes: out.readableBytesView[blockStart..<out.writerIndex])
            out.moveWriterIndex(to: frameStart)
            var first = true
            while block.readableBytes > 0 {
                let chunk = min(block.readableBytes, peerSettings.maxFrameSize)
                var frameFlags: UInt8 = chunk == block.readableBytes ? HTTP2Wire.Flags.endHeaders : 0
                if first, endStream { frameFlags |= HTTP2Wire.Flags.endStream }
                HTTP2Wire.frameHeader(
                    length: chunk, type: first ? .headers : .continuation, flags: frameFlags, streamID: streamID,
                    into: &out)
                if var part = block.readSlice(length: chunk) { out.writeBuffer(&part) }
                first = false
            }
        }
        if endStream { streams.end(streamID, local: true) }
        return true
    }

    /// Sends a body on an active stream: as much as both send windows allow now, split at the
    /// peer's frame size; the rest goes out as credit arrives. END_STREAM follows the last byte
    /// when `endStream`.
    package mutating func writeData(streamID: UInt32, _ bytes: ByteBuffer, endStream: Bool, into out: inout ByteBuffer)
    {
        guard var entry = streams[streamID], entry.state != .halfClosedLocal else { return }
        let waiting = entry.unsent != nil
        if var unsent = entry.unsent {
            var more = bytes
            unsent.writeBuffer(&more)
            entry.unsent = unsent
        } else {
            entry.unsent = bytes
        }
        entry.endAfterUnsent = endStream
        streams[streamID] = entry
        if !sendUnsent(streamID, into: &out), !waiting { blocked.append(streamID) }
    }

    /// Sends a whole body given as bytes: straight from `bytes` into one DATA frame when both
    /// send windows take it all now, nothing waits before it and it fits a frame (a push, as a
    /// rule); otherwise as ``writeData(streamID:_:endStream:into:)`` does.
    package mutating func writeData(streamID: UInt32, bytes: [UInt8], endStream: Bool, into out: inout ByteBuffer) {
        let count = bytes.count
        guard blocked.isEmpty, count <= connectionSend.available, count <= peerSettings.maxFrameSize,
            streams.sendWhole(streamID, count: count, endStream: endStream)
        else {
            writeData(streamID: streamID, ByteBuffer(bytes: bytes), endStream: endStream, into: &out)
            return
        }
        HTTP2Wire.frameHeader(
            length: count, type: .data, flags: endStream ? HTTP2Wire.Flags.endStream : 0, streamID: streamID, into: &out
        )
        out.writeBytes(bytes)
        connectionSend.send(count)
    }

    /// Answers a stream (a server's response): HEADERS with the block `encode` appends, then the
    /// body as DATA when there is one, ending the stream. Nothing is written for a stream the
    /// peer reset meanwhile.
    package mutating func writeResponse(
        streamID: UInt32, body: [UInt8], into out: inout ByteBuffer, encode: (inout ByteBuffer) -> Void
    ) {
        let hasBody = !body.isEmpty
        let written = writeHeaders(streamID: streamID, endStream: !hasBody, into: &out, encode: encode)
        guard written, hasBody else { return }
        writeData(streamID: streamID, bytes: body, endStream: true, into: &out)
    }

    /// Resets a stream of ours or the peer's (RST_STREAM); later frames on it are ignored.
    package mutating func reset(streamID: UInt32, code: HTTP2Wire.ErrorCode, into out: inout ByteBuffer) {
        HTTP2Wire.rstStream(streamID: streamID, code: code, into: &out)
        streams.close(streamID, .sentReset)
    }

    /// Declines a stream the peer just opened, before acting on it: it is closed, and our GOAWAY
    /// will not count it as processed.
    package mutating func decline(_ streamID: UInt32) {
        streams.close(streamID, .sentReset)
        if processedPeerStreamID == streamID { processedPeerStreamID = previousProcessedPeerStreamID }
    }

    /// Sends GOAWAY naming the last peer stream we may have processed; later ones are refused.
    package mutating func goAway(_ code: HTTP2Wire.ErrorCode, debug: [UInt8] = [], into out: inout ByteBuffer) {
        let last = processedPeerStreamID
        sentGoAway = last
        HTTP2Wire.goAway(lastStreamID: last, code: code, debug: debug, into: &out)
    }

    // MARK: Receiving

    /// Adds received bytes.
    package mutating func append(_ bytes: ByteBuffer) {
        reader.append(bytes)
    }

    /// Handles received frames until one is for the owner; nil when more bytes are needed.
    /// Answers (SETTINGS ACK, PING ACK, WINDOW_UPDATE, RST_STREAM, waiting DATA) go to `out`.
    package mutating func nextEvent(into out: inout ByteBuffer) throws(HTTP2ProtocolError) -> HTTP2Event? {
        while let frame = try nextFrame() {
            if let event = try handle(frame, into: &out) { return event }
        }
        return nil
    }

    private mutating func nextFrame() throws(HTTP2ProtocolError) -> InboundFrame? {
        do throws(FrameReader.ParseError) {
            return try reader.next()
        } catch {
            switch error {
            case .badPreface:
                throw .badPreface
            case .frameTooLarge(let length):
                throw HTTP2ProtocolError(
                    .frameSizeError, "a \(length)-byte frame, over SETTINGS_MAX_FRAME_SIZE \(HTTP2Wire.maxFrameSize)")
            }
        }
    }

    /// Handles one frame.
    package mutating func handle(
        _ frame: InboundFrame, into out: inout ByteBuffer
    ) throws(HTTP2ProtocolError) -> HTTP2Event? {
        try assembler.check(frame)
        guard peerSettingsSeen || frame.type == HTTP2Wire.FrameType.settings.rawValue && !frame.has(HTTP2Wire.Flags.ack)
        else {
            throw HTTP2ProtocolError(
                .protocolError, "\(HTTP2Wire.FrameType.name(frame.type)) before the peer's first SETTINGS")
        }
        guard let type = HTTP2Wire.FrameType(rawValue: frame.type) else { return nil }
        switch type {
        case .data, .headers, .continuation, .rstStream, .priority:
            guard frame.streamID != 0 else {
                throw HTTP2ProtocolError(.protocolError, "\(HTTP2Wire.FrameType.name(frame.type)) on stream 0")
            }
        case .settings, .ping, .goAway:
            guard frame.streamID == 0 else {
                throw HTTP2ProtocolError(
                    .protocolError, "\(HTTP2Wire.FrameType.name(frame.type)) on stream \(frame.streamID), not 0")
            }
        case .windowUpdate, .pushPromise:
            break
        }
        switch type {
        case .data: return try receiveData(frame, into: &out)
        case .headers:
            var fragment = try Self.unpadded(frame)
            if frame.has(HTTP2Wire.Flags.priority) {
                guard fragment.readableBytes >= 5 else {
                    throw HTTP2ProtocolError(.frameSizeError, "a HEADERS frame too short for its priority fields")
                }
                fragment.moveReaderIndex(forwardBy: 5)
            }
            if frame.has(HTTP2Wire.Flags.endHeaders) {
                return try receiveHeaderBlock(
                    fragment, streamID: frame.streamID, endStream: frame.has(HTTP2Wire.Flags.endStream), into: &out)
            }
            try assembler.begin(
                streamID: frame.streamID, fragment: fragment, endStream: frame.has(HTTP2Wire.Flags.endStream))
            return nil
        case .continuation:
            guard let block = try assembler.continuation(frame) else { return nil }
            return try receiveHeaderBlock(
                block.fragment, streamID: block.streamID, endStream: block.endStream, into: &out)
        case .priority:
            guard frame.payload.readableBytes == 5 else {
                return streamError(
                    HTTP2ProtocolError(
                        .frameSizeError, "a PRIORITY frame of \(frame.payload.readableBytes) bytes, not 5",
                        stream: frame.streamID), into: &out)
            }
            return nil
        case .rstStream: return try receiveReset(frame)
        case .settings: return try receiveSettings(frame, into: &out)
        case .pushPromise:
            throw HTTP2ProtocolError(
                .protocolError,
                role == .client ? "PUSH_PROMISE, though server push is off" : "PUSH_PROMISE from a client")
        case .ping:
            guard frame.payload.readableBytes == 8 else {
                throw HTTP2ProtocolError(.frameSizeError, "a PING of \(frame.payload.readableBytes) bytes, not 8")
            }
            if !frame.has(HTTP2Wire.Flags.ack),
                let data = frame.payload.getInteger(at: frame.payload.readerIndex, as: UInt64.self)
            {
                HTTP2Wire.ping(data, ack: true, into: &out)
            }
            return nil
        case .goAway:
            guard let goAway = GoAwayFrame(payload: frame.payload) else {
                throw HTTP2ProtocolError(.frameSizeError, "a GOAWAY of \(frame.payload.readableBytes) bytes, under 8")
            }
            receivedGoAway = goAway
            let abandoned = streams.localStreams(above: goAway.lastStreamID)
            for streamID in abandoned { streams.close(streamID, .receivedReset) }
            return .goAway(goAway, abandoned: abandoned)
        case .windowUpdate: return try receiveWindowUpdate(frame, into: &out)
        }
    }

    private mutating func receiveData(
        _ frame: InboundFrame, into out: inout ByteBuffer
    ) throws(HTTP2ProtocolError) -> HTTP2Event? {
        let length = frame.payload.readableBytes
        // Padding counts against the windows too (§6.1).
        guard connectionReceive.receive(length) else {
            throw HTTP2ProtocolError(
                .flowControlError,
                "DATA beyond the connection window (\(length) bytes, \(connectionReceive.available) allowed)")
        }
        if let increment = connectionReceive.creditToReturn() {
            HTTP2Wire.windowUpdate(streamID: 0, increment: increment, into: &out)
        }
        let bytes = try Self.unpadded(frame)
        let streamID = frame.streamID
        let endStream = frame.has(HTTP2Wire.Flags.endStream)
        guard let received = streams.receiveData(streamID, length: length, endStream: endStream) else {
            switch streams.lookup(streamID) {
            case .idle:
                throw HTTP2ProtocolError(.protocolError, "DATA on stream \(streamID), which was never opened")
            case .closed(.sentReset), .active:
                return nil
            case .closed:
                return streamError(
                    HTTP2ProtocolError(.streamClosed, "DATA on closed stream \(streamID)", stream: streamID), into: &out
                )
            }
        }
        guard !received.afterEnd else {
            return streamError(
                HTTP2ProtocolError(.streamClosed, "DATA on stream \(streamID) after its END_STREAM", stream: streamID),
                into: &out)
        }
        guard received.allowed else {
            return streamError(
                HTTP2ProtocolError(.flowControlError, "DATA beyond the window of stream \(streamID)", stream: streamID),
                into: &out)
        }
        if let increment = received.credit {
            HTTP2Wire.windowUpdate(streamID: streamID, increment: increment, into: &out)
        }
        return .data(streamID: streamID, bytes: bytes, endStream: endStream)
    }

    private mutating func receiveHeaderBlock(
        _ fragment: ByteBuffer, streamID: UInt32, endStream: Bool, into out: inout ByteBuffer
    ) throws(HTTP2ProtocolError) -> HTTP2Event? {
        // Decoded whatever becomes of the stream: every block updates the HPACK table.
        let headers: HeaderFields
        do throws(HPACKDecodingError) {
            headers = try decoder.decode(fragment)
        } catch {
            throw HTTP2ProtocolError(.compressionError, "a header block HPACK cannot decode (\(error))")
        }
        switch streams.lookup(streamID) {
        case .active:
            guard streams[streamID]?.state != .halfClosedRemote else {
                return streamError(
                    HTTP2ProtocolError(
                        .streamClosed, "HEADERS on stream \(streamID) after its END_STREAM", stream: streamID),
                    into: &out)
            }
            if endStream { streams.end(streamID, local: false) }
            return .headers(streamID: streamID, headers: headers, endStream: endStream, opened: false)
        case .idle:
            guard streams.isPeerInitiated(streamID), role == .server else {
                throw HTTP2ProtocolError(
                    .protocolError,
                    role == .server
                        ? "HEADERS on even stream \(streamID): a client's streams are odd"
                        : "HEADERS on stream \(streamID), which the client never opened")
            }
            if sentGoAway != nil {
                streams.skipPeer(streamID)
                HTTP2Wire.rstStream(streamID: streamID, code: .refusedStream, into: &out)
                return nil
            }
            streams.openPeer(
                streamID, endStream: endStream, sendWindow: peerSettings.initialWindowSize,
                receiveWindow: latestLocalSettings.initialWindowSize)
            previousProcessedPeerStreamID = processedPeerStreamID
            processedPeerStreamID = streamID
            return .headers(streamID: streamID, headers: headers, endStream: endStream, opened: true)
        case .closed(.sentReset):
            return nil
        case .closed(.ended?), .closed(.receivedReset?):
            throw HTTP2ProtocolError(.streamClosed, "HEADERS on closed stream \(streamID)")
        case .closed(nil):
            if streams.isPeerInitiated(streamID) {
                throw HTTP2ProtocolError(
                    .protocolError,
                    "HEADERS on stream \(streamID), not above the last stream \(streams.lastPeerStreamID)")
            }
            // A late answer on one of our streams closed long ago.
            return nil
        }
    }

    private mutating func receiveReset(_ frame: InboundFrame) throws(HTTP2ProtocolError) -> HTTP2Event? {
        guard frame.payload.readableBytes == 4,
            let code = frame.payload.getInteger(at: frame.payload.readerIndex, as: UInt32.self)
        else {
            throw HTTP2ProtocolError(.frameSizeError, "an RST_STREAM of \(frame.payload.readableBytes) bytes, not 4")
        }
        switch streams.lookup(frame.streamID) {
        case .idle:
            throw HTTP2ProtocolError(.protocolError, "RST_STREAM on stream \(frame.streamID), which was never opened")
        case .closed: return nil
        case .active:
            streams.close(frame.streamID, .receivedReset)
            return .streamReset(streamID: frame.streamID, errorCode: code)
        }
    }

    private mutating func receiveSettings(
        _ frame: InboundFrame, into out: inout ByteBuffer
    ) throws(HTTP2ProtocolError) -> HTTP2Event? {
        if frame.has(HTTP2Wire.Flags.ack) {
            guard frame.payload.readableBytes == 0 else {
                throw HTTP2ProtocolError(
                    .frameSizeError, "a SETTINGS ACK with a \(frame.payload.readableBytes)-byte payload")
            }
            guard !unacknowledged.isEmpty else { return nil }
            localSettings = unacknowledged.removeFirst()
            return .localSettingsAcknowledged
        }
        var settings = peerSettings
        try settings.apply(frame.payload, receivedByClient: role == .client)
        let delta = settings.initialWindowSize - peerSettings.initialWindowSize
        peerSettings = settings
        peerSettingsSeen = true
        guard streams.adjustSendWindows(by: delta) else {
            throw HTTP2ProtocolError(
                .flowControlError,
                "SETTINGS_INITIAL_WINDOW_SIZE \(settings.initialWindowSize) pushed a stream window over 2^31-1")
        }
        HTTP2Wire.settingsAck(into: &out)
        sendBlocked(into: &out)
        return .peerSettingsChanged
    }

    private mutating func receiveWindowUpdate(
        _ frame: InboundFrame, into out: inout ByteBuffer
    ) throws(HTTP2ProtocolError) -> HTTP2Event? {
        guard frame.payload.readableBytes == 4,
            let raw = frame.payload.getInteger(at: frame.payload.readerIndex, as: UInt32.self)
        else {
            throw HTTP2ProtocolError(.frameSizeError, "a WINDOW_UPDATE of \(frame.payload.readableBytes) bytes, not 4")
        }
        let increment = Int(raw & 0x7FFF_FFFF)
        let streamID = frame.streamID
        if streamID == 0 {
            guard increment > 0 else {
                throw HTTP2ProtocolError(.protocolError, "a WINDOW_UPDATE of 0 for the connection")
            }
            guard connectionSend.credit(increment) else {
                throw HTTP2ProtocolError(.flowControlError, "WINDOW_UPDATE pushed the connection window over 2^31-1")
            }
            sendBlocked(into: &out)
            return nil
        }
        switch streams.lookup(streamID) {
        case .idle:
            throw HTTP2ProtocolError(.protocolError, "WINDOW_UPDATE on stream \(streamID), which was never opened")
        case .closed: return nil
        case .active: break
        }
        guard increment > 0 else {
            return streamError(
                HTTP2ProtocolError(.protocolError, "a WINDOW_UPDATE of 0 for stream \(streamID)", stream: streamID),
                into: &out)
        }
        guard var entry = streams[streamID], entry.send.credit(increment) else {
            return streamError(
                HTTP2ProtocolError(
                    .flowControlError, "WINDOW_UPDATE pushed the window of stream \(streamID) over 2^31-1",
                    stream: streamID), into: &out)
        }
        streams[streamID] = entry
        if entry.unsent != nil { sendBlocked(into: &out) }
        return nil
    }

    /// Resets the stream for a stream error and reports it.
    private mutating func streamError(_ error: HTTP2ProtocolError, into out: inout ByteBuffer) -> HTTP2Event {
        guard case .stream(let streamID) = error.scope else { return .streamError(error, streamID: 0) }
        reset(streamID: streamID, code: error.code, into: &out)
        return .streamError(error, streamID: streamID)
    }

    // MARK: Flow control, sending side

    /// Sends waiting body bytes, oldest stream first, while the connection window lasts.
    private mutating func sendBlocked(into out: inout ByteBuffer) {
        var rounds = blocked.count
        while rounds > 0, connectionSend.available > 0, let streamID = blocked.popFirst() {
            rounds -= 1
            if !sendUnsent(streamID, into: &out) { blocked.append(streamID) }
        }
    }

    /// Sends what the windows allow of a stream's waiting bytes; true when none are left (or
    /// the stream is gone).
    private mutating func sendUnsent(_ streamID: UInt32, into out: inout ByteBuffer) -> Bool {
        guard var entry = streams[streamID], var unsent = entry.unsent else { return true }
        let allowed = min(unsent.readableBytes, entry.send.available, connectionSend.available)
        if allowed > 0 || unsent.readableBytes == 0 {
            var left = allowed
            repeat {
                let chunk = min(left, peerSettings.maxFrameSize)
                left -= chunk
                let last = entry.endAfterUnsent && chunk == unsent.readableBytes
                HTTP2Wire.frameHeader(
                    length: chunk, type: .data, flags: last ? HTTP2Wire.Flags.endStream : 0, streamID: streamID,
                    into: &out)
                if var part = unsent.readSlice(length: chunk) { out.writeBuffer(&part) }
            } while left > 0
            entry.send.send(allowed)
            connectionSend.send(allowed)
        }
        guard unsent.readableBytes == 0 else {
            entry.unsent = unsent
            streams[streamID] = entry
            return false
        }
        entry.unsent = nil
        streams[streamID] = entry
        if entry.endAfterUnsent { streams.end(streamID, local: true) }
        return true
    }

    /// A DATA or HEADERS payload without its padding; padding as long as the frame is a
    /// PROTOCOL_ERROR (§6.1).
    private static func unpadded(_ frame: InboundFrame) throws(HTTP2ProtocolError) -> ByteBuffer {
        var payload = frame.payload
        guard frame.has(HTTP2Wire.Flags.padded) else { return payload }
        guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
            throw HTTP2ProtocolError(
                .protocolError, "\(HTTP2Wire.FrameType.name(frame.type)) padding longer than the frame")
        }
        payload.moveWriterIndex(to: payload.writerIndex - Int(padding))
        return payload
    }
}
