import LivelineHTTP2
import NIOCore
import NIOHPACK
import Testing

/// The connection core, frame by frame, on both sides.
@Suite struct HTTP2ConnectionCoreTests {
    // MARK: Preface, SETTINGS, PING

    @Test func theOpeningIsThePrefaceThenSettingsThenTheWindowRaise() {
        var settings = ConnectionSettings()
        settings.enablePush = false
        settings.initialWindowSize = 1 << 20
        let core = HTTP2ConnectionCore(role: .client, settings: settings, connectionWindow: 1 << 20)
        var out = ByteBuffer()
        core.start(into: &out)
        #expect(out.readBytes(length: HTTP2Wire.preface.count) == HTTP2Wire.preface)
        var reader = FrameReader(expectingPreface: false)
        reader.append(out)
        let first = try? reader.next()
        #expect(first?.kind == .settings)
        #expect(first?.payload.readableBytes == 12)
        let second = try? reader.next()
        #expect(second?.kind == .windowUpdate)
        #expect(second?.firstWord == UInt32((1 << 20) - 65_535))
    }

    @Test func settingsAreAcknowledgedAppliedAndUnknownOnesIgnored() throws {
        var server = try Endpoint(.server)
        let events = try server.receive(Wire.settings([(3, 7), (4, 1000), (0x10, 1), (0xF0F0, 99)]))
        guard case .peerSettingsChanged? = events.first else { Issue.record("no settings event: \(events)"); return }
        #expect(server.core.peerSettings.maxConcurrentStreams == 7)
        #expect(server.core.peerSettings.initialWindowSize == 1000)
        let sent = server.sent()
        #expect(sent.count == 1)
        #expect(sent.first?.kind == .settings && sent.first?.has(HTTP2Wire.Flags.ack) == true)
        #expect(sent.first?.payload.readableBytes == 0)
    }

    @Test func ourSettingsApplyWhenAcknowledged() throws {
        var settings = ConnectionSettings()
        settings.maxConcurrentStreams = 1
        var server = try Endpoint(.server, settings: settings)
        #expect(server.core.localSettings.maxConcurrentStreams == nil)
        var events = try server.receive(Wire.frame(.settings, flags: HTTP2Wire.Flags.ack, stream: 0))
        #expect(server.core.localSettings.maxConcurrentStreams == 1)
        server.core.sendSettings([(.maxConcurrentStreams, 50)], into: &server.out)
        #expect(server.core.localSettings.maxConcurrentStreams == 1)
        events = try server.receive(Wire.frame(.settings, flags: HTTP2Wire.Flags.ack, stream: 0))
        #expect(server.core.localSettings.maxConcurrentStreams == 50)
        if case .localSettingsAcknowledged? = events.first {} else { Issue.record("no ACK event: \(events)") }
    }

    @Test func pingIsAnsweredWithTheSameEightBytes() throws {
        var server = try Endpoint(.server)
        let events = try server.receive(Wire.frame(.ping, stream: 0, [1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(events.isEmpty)
        let sent = server.sent()
        #expect(sent.count == 1)
        #expect(sent.first?.kind == .ping && sent.first?.has(HTTP2Wire.Flags.ack) == true)
        #expect(sent.first.map { Array($0.payload.readableBytesView) } == [1, 2, 3, 4, 5, 6, 7, 8])
        _ = try server.receive(Wire.frame(.ping, flags: HTTP2Wire.Flags.ack, stream: 0, [1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(server.sent().isEmpty)
    }

    /// Frames of the wrong length or on the wrong stream: each a connection error with the
    /// RFC's code.
    @Test(arguments: [
        ("SETTINGS on stream 1", Wire.settings([(3, 1)], stream: 1), HTTP2Wire.ErrorCode.protocolError),
        ("SETTINGS of 5 bytes", Wire.frame(.settings, stream: 0, [0, 3, 0, 0, 1]), .frameSizeError),
        (
            "SETTINGS ACK with a payload", Wire.frame(.settings, flags: 1, stream: 0, [0, 3, 0, 0, 0, 1]),
            .frameSizeError
        ),
        ("SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1", Wire.settings([(4, 0x8000_0000)]), .flowControlError),
        ("SETTINGS_MAX_FRAME_SIZE under 16384", Wire.settings([(5, 100)]), .protocolError),
        ("SETTINGS_ENABLE_PUSH of 2", Wire.settings([(2, 2)]), .protocolError),
        ("PING on stream 1", Wire.frame(.ping, stream: 1, [0, 0, 0, 0, 0, 0, 0, 0]), .protocolError),
        ("PING of 7 bytes", Wire.frame(.ping, stream: 0, [0, 0, 0, 0, 0, 0, 0]), .frameSizeError),
        ("GOAWAY on stream 1", Wire.frame(.goAway, stream: 1, [0, 0, 0, 0, 0, 0, 0, 0]), .protocolError),
        ("GOAWAY of 4 bytes", Wire.frame(.goAway, stream: 0, [0, 0, 0, 0]), .frameSizeError),
        ("DATA on stream 0", Wire.data(stream: 0, [1]), .protocolError),
        ("HEADERS on stream 0", Wire.headers(stream: 0), .protocolError),
        ("RST_STREAM on stream 0", Wire.frame(.rstStream, stream: 0, Wire.u32(8)), .protocolError),
        ("CONTINUATION on stream 0", Wire.frame(.continuation, flags: 4, stream: 0, [0x82]), .protocolError),
        ("WINDOW_UPDATE of 3 bytes", Wire.frame(.windowUpdate, stream: 0, [0, 0, 1]), .frameSizeError),
        ("WINDOW_UPDATE of 0 for the connection", Wire.windowUpdate(stream: 0, 0), .protocolError),
        ("RST_STREAM on an idle stream", Wire.frame(.rstStream, stream: 5, Wire.u32(8)), .protocolError),
        ("DATA on an idle stream", Wire.data(stream: 5, [1]), .protocolError),
        ("WINDOW_UPDATE on an idle stream", Wire.windowUpdate(stream: 5, 10), .protocolError),
        ("HEADERS on an even stream", Wire.headers(stream: 2), .protocolError),
        ("CONTINUATION without HEADERS", Wire.frame(.continuation, flags: 4, stream: 1, [0x82]), .protocolError),
        (
            "PUSH_PROMISE from a client", Wire.frame(.pushPromise, flags: 4, stream: 1, [0, 0, 0, 2, 0x82]),
            .protocolError
        ),
        (
            "an undecodable header block", Wire.headers(stream: 1, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            .compressionError
        ),
    ])
    func connectionErrors(_ name: String, _ frame: ByteBuffer, _ code: HTTP2Wire.ErrorCode) throws {
        var server = try Endpoint(.server)
        let error = server.error(frame)
        #expect(error?.code == code, "\(name): \(String(describing: error))")
        #expect(error?.scope == .connection, "\(name)")
    }

    @Test func theFirstFrameMustBeSettings() {
        var core = HTTP2ConnectionCore(role: .server, settings: ConnectionSettings(), connectionWindow: 65_535)
        var out = ByteBuffer()
        var bytes = ByteBuffer(bytes: HTTP2Wire.preface)
        var ping = Wire.frame(.ping, stream: 0, [0, 0, 0, 0, 0, 0, 0, 0])
        bytes.writeBuffer(&ping)
        core.append(bytes)
        #expect(throws: HTTP2ProtocolError.self) { _ = try core.nextEvent(into: &out) }
    }

    @Test func aWrongPrefaceIsNotHTTP2() {
        var core = HTTP2ConnectionCore(role: .server, settings: ConnectionSettings(), connectionWindow: 65_535)
        var out = ByteBuffer()
        core.append(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
        #expect(throws: HTTP2ProtocolError.badPreface) { _ = try core.nextEvent(into: &out) }
    }

    @Test func anOversizedFrameIsAFrameSizeError() throws {
        var server = try Endpoint(.server)
        let error = server.error(Wire.data(stream: 1, Array(repeating: 0, count: HTTP2Wire.maxFrameSize + 1)))
        #expect(error?.code == .frameSizeError)
    }

    @Test func unknownFrameTypesAreIgnored() throws {
        var server = try Endpoint(.server)
        let events = try server.receive(
            Wire.frame(0x42, flags: 0xFF, stream: 0, [1, 2, 3]), Wire.frame(0xFA, stream: 7, []),
            Wire.headers(stream: 1, endStream: true))
        #expect(events.count == 1)
        #expect(server.sent().isEmpty)
    }

    // MARK: Padding

    @Test func paddedHeadersAndDataArriveWithoutTheirPadding() throws {
        var server = try Endpoint(.server)
        let block = Wire.block(path: "/3/device/padded")
        let headers = Wire.frame(
            .headers, flags: HTTP2Wire.Flags.padded | HTTP2Wire.Flags.endHeaders, stream: 1,
            [4] + block + [0, 0, 0, 0])
        let data = Wire.frame(
            .data, flags: HTTP2Wire.Flags.padded | HTTP2Wire.Flags.endStream, stream: 1, [3, 0x68, 0x69, 0, 0, 0])
        let events = try server.receive(headers, data)
        guard events.count == 2, case .headers(1, let fields, false, true) = events[0],
            case .data(1, let bytes, true) = events[1]
        else {
            Issue.record("unexpected events: \(events)")
            return
        }
        #expect(fields.first(name: ":path") == "/3/device/padded")
        #expect(String(buffer: bytes) == "hi")
    }

    @Test func paddingAsLongAsTheFrameIsAProtocolError() throws {
        var server = try Endpoint(.server)
        #expect(
            server.error(
                Wire.frame(.headers, flags: HTTP2Wire.Flags.padded | HTTP2Wire.Flags.endHeaders, stream: 1, [9, 0x82]))?
                .code == .protocolError)
        var other = try Endpoint(.server)
        _ = try other.receive(Wire.headers(stream: 1))
        #expect(
            other.error(Wire.frame(.data, flags: HTTP2Wire.Flags.padded, stream: 1, [2, 0]))?.code == .protocolError)
        var empty = try Endpoint(.server)
        #expect(empty.error(Wire.frame(.data, flags: HTTP2Wire.Flags.padded, stream: 1, []))?.code == .protocolError)
    }

    // MARK: CONTINUATION

    @Test func headersSplitOverContinuationFramesAreJoined() throws {
        var server = try Endpoint(.server)
        let block = Wire.block(path: "/3/device/" + String(repeating: "a", count: 64))
        let events = try server.receive(
            Wire.headers(stream: 1, endStream: true, endHeaders: false, Array(block[0..<5])),
            Wire.frame(.continuation, stream: 1, Array(block[5..<20])),
            Wire.frame(.continuation, flags: HTTP2Wire.Flags.endHeaders, stream: 1, Array(block[20...])))
        guard case .headers(1, let fields, true, true)? = events.first else { Issue.record("\(events)"); return }
        #expect(fields.first(name: ":path") == "/3/device/" + String(repeating: "a", count: 64))
    }

    @Test(arguments: [
        ("CONTINUATION on another stream", Wire.frame(.continuation, flags: 4, stream: 3, [0x82])),
        ("PING inside a header block", Wire.frame(.ping, stream: 0, [0, 0, 0, 0, 0, 0, 0, 0])),
        ("DATA inside a header block", Wire.data(stream: 1, [1])),
        ("an unknown frame inside a header block", Wire.frame(0x42, stream: 0, [])),
    ])
    func aHeaderBlockCannotBeInterrupted(_ name: String, _ frame: ByteBuffer) throws {
        var server = try Endpoint(.server)
        let error = server.error(Wire.headers(stream: 1, endHeaders: false, Array(Wire.block()[0..<3])), frame)
        #expect(error?.code == .protocolError, "\(name)")
        #expect(
            error?.why.contains("inside the header block of stream 1") == true, "\(name): \(String(describing: error))")
    }

    @Test func anEndlessHeaderBlockIsRefused() throws {
        var server = try Endpoint(.server)
        var frames = [Wire.headers(stream: 1, endHeaders: false, [0x82])]
        for _ in 0..<5 { frames.append(Wire.frame(.continuation, stream: 1, Array(repeating: 0, count: 10_000))) }
        var error: HTTP2ProtocolError?
        for frame in frames where error == nil { error = server.error(frame) }
        #expect(error?.code == .enhanceYourCalm)
    }

    @Test func longHeaderBlocksAreSentAsContinuationFrames() throws {
        var client = try Endpoint(.client)
        let streamID = try client.openStream()
        client.core.writeHeaders(streamID: streamID, endStream: true, into: &client.out) { block in
            block.writeBytes(Array(repeating: UInt8(0x82), count: 40_000))
        }
        let sent = client.sent()
        #expect(sent.map(\.kind) == [.headers, .continuation, .continuation])
        #expect(sent.map(\.payload.readableBytes) == [16_384, 16_384, 7_232])
        #expect(sent[0].has(HTTP2Wire.Flags.endStream) && !sent[0].has(HTTP2Wire.Flags.endHeaders))
        #expect(sent[2].has(HTTP2Wire.Flags.endHeaders))
    }

    // MARK: Flow control

    @Test func aConnectionWindowPastTheLimitIsAConnectionErrorOnBothSides() throws {
        for role in [HTTP2ConnectionCore.Role.client, .server] {
            var endpoint = try Endpoint(role)
            let error = endpoint.error(Wire.windowUpdate(stream: 0, 0x7FFF_FFFF))
            #expect(error?.code == .flowControlError)
            #expect(error?.scope == .connection)
        }
    }

    @Test func aStreamWindowPastTheLimitResetsThatStreamOnly() throws {
        var client = try Endpoint(.client)
        let streamID = try client.openStream()
        client.core.writeHeaders(streamID: streamID, endStream: false, into: &client.out) {
            $0.writeInteger(UInt8(0x82))
        }
        _ = client.sent()
        let events = try client.receive(Wire.windowUpdate(stream: streamID, 0x7FFF_FFFF))
        guard case .streamError(let error, streamID)? = events.first else { Issue.record("\(events)"); return }
        #expect(error.code == .flowControlError)
        let sent = client.sent()
        #expect(sent.first?.kind == .rstStream)
        #expect(sent.first?.firstWord == HTTP2Wire.ErrorCode.flowControlError.rawValue)
        #expect(client.core.streams.count == 0)
        // The connection goes on.
        _ = try client.receive(Wire.frame(.ping, stream: 0, [0, 0, 0, 0, 0, 0, 0, 1]))
        #expect(client.sent().first?.kind == .ping)
    }

    @Test func anInitialWindowChangePastTheLimitIsAConnectionError() throws {
        var client = try Endpoint(.client)
        let streamID = try client.openStream()
        client.core.writeHeaders(streamID: streamID, endStream: false, into: &client.out) {
            $0.writeInteger(UInt8(0x82))
        }
        _ = try client.receive(Wire.windowUpdate(stream: streamID, 0x7FFF_0000))
        #expect(client.error(Wire.settings([(4, 0x7FFF_FFFF)]))?.code == .flowControlError)
    }

    @Test func bodiesWaitForCreditAndEndWithTheLastByte() throws {
        var client = try Endpoint(.client)
        _ = try client.receive(Wire.settings([(4, 10)]))
        _ = client.sent()
        let streamID = try client.openStream()
        client.core.writeHeaders(streamID: streamID, endStream: false, into: &client.out) {
            $0.writeInteger(UInt8(0x82))
        }
        client.core.writeData(
            streamID: streamID, ByteBuffer(bytes: Array(repeating: 7, count: 25)), endStream: true, into: &client.out)
        var sent = client.sent()
        #expect(sent.map(\.kind) == [.headers, .data])
        #expect(sent[1].payload.readableBytes == 10 && !sent[1].has(HTTP2Wire.Flags.endStream))
        _ = try client.receive(Wire.windowUpdate(stream: streamID, 10))
        sent = client.sent()
        #expect(sent.map(\.payload.readableBytes) == [10])
        _ = try client.receive(Wire.windowUpdate(stream: streamID, 100))
        sent = client.sent()
        #expect(sent.map(\.payload.readableBytes) == [5])
        #expect(sent.first?.has(HTTP2Wire.Flags.endStream) == true)
    }

    @Test func dataBeyondAStreamWindowResetsTheStream() throws {
        var settings = ConnectionSettings()
        settings.initialWindowSize = 100
        var server = try Endpoint(.server, settings: settings)
        _ = try server.receive(Wire.headers(stream: 1))
        let events = try server.receive(Wire.data(stream: 1, Array(repeating: 0, count: 101)))
        guard case .streamError(let error, 1)? = events.last else { Issue.record("\(events)"); return }
        #expect(error.code == .flowControlError)
        #expect(
            server.sent().contains {
                $0.kind == .rstStream && $0.firstWord == HTTP2Wire.ErrorCode.flowControlError.rawValue
            })
    }

    @Test func receivedBytesAreCreditedBackOnceHalfTheWindowIsUsed() throws {
        var settings = ConnectionSettings()
        settings.initialWindowSize = 1 << 20
        var server = try Endpoint(.server, settings: settings)
        _ = try server.receive(Wire.headers(stream: 1))
        _ = try server.receive(Wire.data(stream: 1, Array(repeating: 0, count: 16_384)))
        #expect(server.sent().isEmpty)
        _ = try server.receive(Wire.data(stream: 1, Array(repeating: 0, count: 16_384)))
        let credit = server.sent().filter { $0.kind == .windowUpdate && $0.streamID == 0 }
        #expect(credit.first?.firstWord == 32_768)
    }

    @Test func aWindowRefusesMoreThanItAllowsAndCapsCredit() {
        var window = FlowControlWindow(100)
        let first = window.receive(60)
        let second = window.receive(41)
        let credit = window.creditToReturn()
        #expect(first && !second && credit == 60)
        #expect(window.available == 100)
        var send = FlowControlWindow(HTTP2Wire.maxWindow - 10)
        let fits = send.credit(10)
        let overflows = !send.credit(1)
        #expect(fits && overflows)
        #expect(send.available == HTTP2Wire.maxWindow)
    }

    // MARK: Stream states

    @Test func framesOnAClosedStream() throws {
        var server = try Endpoint(.server)
        _ = try server.receive(Wire.headers(stream: 1, endStream: true))
        server.core.writeHeaders(streamID: 1, endStream: true, into: &server.out) { $0.writeInteger(UInt8(0x88)) }
        #expect(server.core.streams.count == 0)
        _ = server.sent()
        // DATA: a stream error STREAM_CLOSED.
        let events = try server.receive(Wire.data(stream: 1, [1]))
        guard case .streamError(let error, 1)? = events.first else { Issue.record("\(events)"); return }
        #expect(error.code == .streamClosed)
        #expect(server.sent().first?.firstWord == HTTP2Wire.ErrorCode.streamClosed.rawValue)
        // WINDOW_UPDATE and RST_STREAM may still come: ignored.
        #expect(try server.receive(Wire.windowUpdate(stream: 1, 5)).isEmpty)
        // HEADERS on a stream the peer ended: a connection error STREAM_CLOSED.
        var other = try Endpoint(.server)
        _ = try other.receive(Wire.headers(stream: 1, endStream: true))
        other.core.writeHeaders(streamID: 1, endStream: true, into: &other.out) { $0.writeInteger(UInt8(0x88)) }
        #expect(other.error(Wire.headers(stream: 1, endStream: true))?.code == .streamClosed)
    }

    @Test func dataAfterEndStreamIsAStreamError() throws {
        var server = try Endpoint(.server)
        _ = try server.receive(Wire.headers(stream: 1, endStream: true))
        let events = try server.receive(Wire.data(stream: 1, [1]))
        guard case .streamError(let error, 1)? = events.first else { Issue.record("\(events)"); return }
        #expect(error.code == .streamClosed)
    }

    @Test func framesOnAStreamWeResetAreIgnored() throws {
        var server = try Endpoint(.server)
        _ = try server.receive(Wire.headers(stream: 1))
        server.core.reset(streamID: 1, code: .noError, into: &server.out)
        _ = server.sent()
        #expect(try server.receive(Wire.data(stream: 1, [1, 2, 3])).isEmpty)
        #expect(try server.receive(Wire.headers(stream: 1, endStream: true)).isEmpty)
        #expect(server.sent().isEmpty)
    }

    @Test func streamIDsMustIncrease() throws {
        var server = try Endpoint(.server)
        _ = try server.receive(Wire.headers(stream: 5, endStream: true))
        let error = server.error(Wire.headers(stream: 3, endStream: true))
        #expect(error?.code == .protocolError)
        #expect(error?.why.contains("not above the last stream 5") == true)
    }

    @Test func aResetFromThePeerIsReported() throws {
        var server = try Endpoint(.server)
        _ = try server.receive(Wire.headers(stream: 1))
        let events = try server.receive(Wire.frame(.rstStream, stream: 1, Wire.u32(8)))
        guard case .streamReset(1, 8)? = events.first else { Issue.record("\(events)"); return }
        #expect(server.core.streams.count == 0)
        #expect(server.error(Wire.frame(.rstStream, stream: 1, [0, 0, 8]))?.code == .frameSizeError)
    }

    @Test func afterOurGoAwayNewStreamsAreRefused() throws {
        var server = try Endpoint(.server)
        _ = try server.receive(Wire.headers(stream: 1))
        server.core.goAway(.noError, debug: Array(#"{"reason":"Shutdown"}"#.utf8), into: &server.out)
        let goAway = try #require(server.sent().first)
        #expect(GoAwayFrame(payload: goAway.payload)?.lastStreamID == 1)
        #expect(try server.receive(Wire.headers(stream: 3, endStream: true)).isEmpty)
        let refused = server.sent()
        #expect(refused.first?.kind == .rstStream && refused.first?.streamID == 3)
        #expect(refused.first?.firstWord == HTTP2Wire.ErrorCode.refusedStream.rawValue)
        // The stream opened before still gets its body.
        let events = try server.receive(Wire.data(stream: 1, [1], endStream: true))
        #expect(events.count == 1)
    }

    @Test func aClientRefusesPushAndStreamsItNeverOpened() throws {
        var client = try Endpoint(.client)
        #expect(
            client.error(Wire.frame(.pushPromise, flags: 4, stream: 1, [0, 0, 0, 2, 0x82]))?.code == .protocolError)
        var other = try Endpoint(.client)
        #expect(
            other.error(Wire.headers(stream: 2, endStream: true, Wire.block(status: "200")))?.code == .protocolError)
        var third = try Endpoint(.client)
        #expect(third.error(Wire.settings([(2, 1)]))?.code == .protocolError)
    }

    // MARK: GOAWAY

    @Test func goAwayIsParsedAndUnprocessedStreamsAbandoned() throws {
        var client = try Endpoint(.client)
        let first = try client.openStream()
        let second = try client.openStream()
        for id in [first, second] {
            client.core.writeHeaders(streamID: id, endStream: true, into: &client.out) { $0.writeInteger(UInt8(0x82)) }
        }
        let debug = Array(#"{"reason":"TooManyRequests"}"#.utf8)
        let events = try client.receive(Wire.frame(.goAway, stream: 0, Wire.u32(first) + Wire.u32(11) + debug))
        guard case .goAway(let frame, let abandoned)? = events.first else { Issue.record("\(events)"); return }
        #expect(frame.lastStreamID == first)
        #expect(frame.errorName == "ENHANCE_YOUR_CALM")
        #expect(frame.debugText == #"{"reason":"TooManyRequests"}"#)
        #expect(abandoned == [second])
        #expect(client.core.streams.count == 1)
        // The stream the server kept still gets its answer.
        let answer = try client.receive(Wire.headers(stream: first, endStream: true, Wire.block(status: "200")))
        #expect(answer.count == 1)
    }

    @Test func errorsReadLikeTheRFC() {
        let error = HTTP2ProtocolError(.protocolError, "CONTINUATION without HEADERS")
        #expect(error.description == "PROTOCOL_ERROR: CONTINUATION without HEADERS")
        #expect(HTTP2Wire.ErrorCode.name(11) == "ENHANCE_YOUR_CALM")
        #expect(HTTP2Wire.ErrorCode.name(0x77) == "error 119")
    }
}
