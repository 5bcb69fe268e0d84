#!/usr/bin/env python3
"""HTTP/2 conformance of Liveline's connection core, checked by Python's h2 (a strict state
machine nobody here wrote), in both directions.

    scripts/check/h2-conformance.py [--liveline .build/debug/liveline] [--skip-client]
        (a) starts `liveline mock-apns --h2c` on a loopback port and drives edge cases at it:
            padded HEADERS and DATA, headers split over CONTINUATION, tiny windows, unknown
            frame types, extension settings, PING, and broken frames (window overflows, frames
            on closed streams, decreasing or even stream ids, interrupted header blocks,
            oversized frames), checking each answer or its GOAWAY / RST_STREAM code;
        (b) runs the Swift test `PythonH2ServerTests`, where Liveline's APNs client talks to
            the server below, and counts its result.
    scripts/check/h2-conformance.py serve
        runs (b)'s server: an h2 server on 127.0.0.1 that prints `listening PORT`, answers with
        padding, CONTINUATION-split headers, 16-byte stream windows, SETTINGS changes, GOAWAY,
        RST_STREAM or a protocol error by the request's token (`/3/device/<token>`), and prints
        what it saw of the client (`observed: …`, `violation: …`).

Needs `pip install h2`. Exits non-zero on any failure; the last line is
`h2 conformance: N passed, M failed`.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
from hyperframe.frame import ContinuationFrame, DataFrame, Frame, HeadersFrame

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOPIC = "com.example.app.push-type.liveactivity"
TOKEN = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
CODES = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR", 3: "FLOW_CONTROL_ERROR", 5: "STREAM_CLOSED",
         6: "FRAME_SIZE_ERROR", 7: "REFUSED_STREAM", 8: "CANCEL", 9: "COMPRESSION_ERROR", 11: "ENHANCE_YOUR_CALM"}


def raw_frame(type_, flags, stream, payload=b""):
    """A frame built byte by byte, so it can break the rules."""
    return len(payload).to_bytes(3, "big") + bytes([type_, flags]) + stream.to_bytes(4, "big") + payload


def parse_frames(data):
    """Splits bytes into hyperframe frames; returns (frames, rest)."""
    frames = []
    while len(data) >= 9:
        frame, length = Frame.parse_frame_header(memoryview(data[:9]))
        if len(data) < 9 + length:
            break
        frame.parse_body(memoryview(data[9:9 + length]))
        frames.append(frame)
        data = data[9 + length:]
    return frames, data


def transform(data, change):
    """Rewrites the frames h2 is about to send (to add padding or split a header block)."""
    frames, rest = parse_frames(data)
    out = b""
    for frame in frames:
        out += b"".join(f.serialize() for f in change(frame))
    return out + rest


def split_headers(frame):
    """HEADERS with END_HEADERS → HEADERS + CONTINUATION + CONTINUATION."""
    if not isinstance(frame, HeadersFrame) or "END_HEADERS" not in frame.flags or len(frame.data) < 3:
        return [frame]
    block = frame.data
    cut1, cut2 = len(block) // 3, 2 * len(block) // 3
    first = HeadersFrame(frame.stream_id, data=block[:cut1])
    first.flags = set(frame.flags) - {"END_HEADERS"}
    middle = ContinuationFrame(frame.stream_id, data=block[cut1:cut2])
    last = ContinuationFrame(frame.stream_id, data=block[cut2:])
    last.flags.add("END_HEADERS")
    return [first, middle, last]


def pad_headers(frame):
    if isinstance(frame, HeadersFrame):
        frame.flags.add("PADDED")
        frame.pad_length = 17
    return [frame]


# MARK: (a) the mock, driven by an h2 client

class MockClient:
    """An h2 client connection to the mock; raw bytes can be slipped in between h2's."""

    def __init__(self, port, settings=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        if settings:
            self.conn.update_settings(settings)
        self.flush()
        self.events = []
        self.closed = False

    def flush(self, change=None):
        data = self.conn.data_to_send()
        if change:
            data = transform(data, change)
        if data:
            self.sock.sendall(data)

    def send_raw(self, data):
        self.sock.sendall(data)

    def request(self, stream_id, token=TOKEN, topic=TOPIC, body=None, end=True, extra=()):
        body = body if body is not None else json.dumps(
            {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": {"score": 1}}}).encode()
        headers = [(":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", f"/3/device/{token}"),
                   ("apns-topic", topic), ("apns-push-type", "liveactivity"), ("apns-priority", "10"), *extra]
        self.conn.send_headers(stream_id, headers, end_stream=False)
        return body

    def pump(self, until, timeout=5):
        """Reads and handles events until `until(events)` or timeout; answers flow control."""
        deadline = time.time() + timeout
        while not until(self.events) and time.time() < deadline and not self.closed:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                break
            if not data:
                self.closed = True
                break
            for event in self.conn.receive_data(data):
                self.events.append(event)
                if isinstance(event, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            self.flush()
        return self.events

    def response(self, stream_id, timeout=5):
        def ended(events):
            return any(isinstance(e, (h2.events.StreamEnded, h2.events.StreamReset)) and e.stream_id == stream_id for e in events)
        self.pump(ended, timeout)
        status, headers, body = None, {}, b""
        for e in self.events:
            if isinstance(e, h2.events.ResponseReceived) and e.stream_id == stream_id:
                headers = dict(e.headers)
                status = int(headers.get(":status", 0))
            if isinstance(e, h2.events.DataReceived) and e.stream_id == stream_id:
                body += e.data
        return status, headers, body

    def raw_answer(self, predicate, timeout=5):
        """After rule-breaking bytes: reads frames without h2 until one matches; returns it."""
        deadline = time.time() + timeout
        rest = b""
        while time.time() < deadline:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return None
            if not data:
                return None
            frames, rest = parse_frames(rest + data)
            for frame in frames:
                if predicate(frame):
                    return frame
        return None

    def closes(self, timeout=5):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if not self.sock.recv(65536):
                    return True
            except ConnectionResetError:
                # Closed with our unread bytes in its buffer: the kernel resets instead.
                return True
            except socket.timeout:
                return False
        return False

    def close(self):
        self.sock.close()


def goaway_code(frame):
    return None if frame is None else frame.error_code


def is_goaway(frame):
    return frame.type == 0x07


def is_rst(stream):
    return lambda frame: frame.type == 0x03 and frame.stream_id == stream


def established(port, settings=None):
    """A client whose first request went through, so the mock's stream limit is raised."""
    client = MockClient(port, settings)
    body = client.request(1)
    client.conn.send_data(1, body, end_stream=True)
    client.flush()
    status, _, _ = client.response(1)
    assert status == 200, f"the opening request got {status}"
    return client


def mock_checks(port):
    checks = []

    def check(name):
        def register(fn):
            checks.append((name, fn))
            return fn
        return register

    @check("padded HEADERS and padded DATA get 200")
    def _():
        c = MockClient(port)
        body = c.request(1)
        c.conn.send_data(1, body, end_stream=True, pad_length=33)
        c.flush(pad_headers)
        status, headers, _ = c.response(1)
        assert status == 200 and "apns-id" in headers, (status, headers)

    @check("a header block split over HEADERS + 2 CONTINUATION gets 200")
    def _():
        c = MockClient(port)
        body = c.request(1, extra=[("apns-expiration", "0")])
        c.conn.send_data(1, body, end_stream=True)
        c.flush(split_headers)
        status, _, _ = c.response(1)
        assert status == 200, status

    @check("unknown frame types and extension settings are ignored")
    def _():
        c = MockClient(port, {0x7F01: 5, 0xFF00: 9})
        c.send_raw(raw_frame(0xFA, 0xFF, 0, b"ignored") + raw_frame(0x0B, 0, 1, b"\x00\x01"))
        body = c.request(1)
        c.conn.send_data(1, body, end_stream=True)
        c.flush()
        status, _, _ = c.response(1)
        assert status == 200, status
        assert any(isinstance(e, h2.events.SettingsAcknowledged) for e in c.events), "no SETTINGS ACK"

    @check("PING is answered with the same 8 bytes")
    def _():
        c = MockClient(port)
        c.conn.ping(b"liveline")
        c.flush()
        events = c.pump(lambda es: any(isinstance(e, h2.events.PingAckReceived) for e in es))
        acks = [e for e in events if isinstance(e, h2.events.PingAckReceived)]
        assert acks and acks[0].ping_data == b"liveline", acks

    @check("an error body squeezes through 8-byte stream windows")
    def _():
        c = MockClient(port, {h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 8})
        body = c.request(1, topic="com.example.other")
        c.conn.send_data(1, body, end_stream=True)
        c.flush()
        status, _, answer = c.response(1)
        assert status == 400 and json.loads(answer) == {"reason": "DeviceTokenNotForTopic"}, (status, answer)
        assert sum(isinstance(e, h2.events.DataReceived) for e in c.events) >= 4, "not split by the window"

    @check("60 concurrent streams after a valid token all get 200")
    def _():
        c = established(port)
        ids = list(range(3, 123, 2))
        for sid in ids:
            body = c.request(sid)
            c.conn.send_data(sid, body, end_stream=True)
        c.flush()
        statuses = [c.response(sid)[0] for sid in ids]
        assert statuses.count(200) == len(ids), statuses

    def expect_goaway(name, setup, bad, code):
        @check(f"{name}: GOAWAY {CODES[code]}")
        def _():
            c = setup()
            c.send_raw(bad)
            frame = c.raw_answer(is_goaway)
            assert goaway_code(frame) == code, f"got {frame}"
            assert json.loads(frame.additional_data).get("reason"), frame.additional_data
            assert c.closes(), "the connection stayed open"

    def expect_reset(name, setup, bad, stream, code):
        @check(f"{name}: RST_STREAM {CODES[code]}")
        def _():
            c = setup()
            c.send_raw(bad)
            frame = c.raw_answer(is_rst(stream))
            assert frame is not None and frame.error_code == code, f"got {frame}"

    fresh = lambda: MockClient(port)
    done = lambda: established(port)

    def open_stream():
        c = established(port)
        c.request(3)
        c.flush()
        return c

    static_block = bytes([0x83, 0x86, 0x84])  # :method POST, :scheme http, :path / (static table only)
    expect_goaway("WINDOW_UPDATE pushing the connection window over 2^31-1", fresh,
                  raw_frame(0x8, 0, 0, (0x7FFFFFFF).to_bytes(4, "big")), 3)
    expect_reset("WINDOW_UPDATE pushing a stream window over 2^31-1", open_stream,
                 raw_frame(0x8, 0, 3, (0x7FFFFFFF).to_bytes(4, "big")), 3, 3)
    expect_reset("DATA on a closed stream", done, raw_frame(0x0, 1, 1, b"late"), 1, 5)
    expect_goaway("HEADERS on a closed stream", done, raw_frame(0x1, 5, 1, static_block), 5)
    expect_goaway("a stream id lower than the last", done, raw_frame(0x1, 5, 7, static_block) + raw_frame(0x1, 5, 5, static_block), 1)
    expect_goaway("an even stream id from a client", done, raw_frame(0x1, 5, 4, static_block), 1)
    expect_goaway("CONTINUATION without HEADERS", done, raw_frame(0x9, 4, 3, static_block), 1)
    expect_goaway("a PING inside a header block", done, raw_frame(0x1, 0, 3, static_block) + raw_frame(0x6, 0, 0, b"12345678"), 1)
    expect_goaway("padding longer than the frame", done, raw_frame(0x1, 0x4 | 0x8, 3, bytes([40]) + static_block), 1)
    expect_goaway("a frame over SETTINGS_MAX_FRAME_SIZE", done, raw_frame(0x0, 0, 3, bytes(16385)), 6)
    expect_goaway("SETTINGS on stream 1", done, raw_frame(0x4, 0, 1, b""), 1)
    expect_goaway("a PING of 7 bytes", done, raw_frame(0x6, 0, 0, b"1234567"), 6)
    expect_goaway("PUSH_PROMISE from a client", done, raw_frame(0x5, 4, 1, (2).to_bytes(4, "big") + static_block), 1)
    return checks


def run_mock(binary):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    mock = subprocess.Popen([binary, "mock-apns", "--h2c", "--listen", f"127.0.0.1:{port}", "--accept-any-token",
                             "--threads", "1", "--max-streams", "100"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        results = []
        for name, fn in mock_checks(port):
            try:
                fn()
                results.append((name, None))
            except Exception as error:  # a failed check, whatever raised it
                results.append((name, f"{type(error).__name__}: {error}"))
        return results
    finally:
        mock.terminate()
        mock.wait(timeout=10)


# MARK: (b) a server for the client

class ServerConnection(threading.Thread):
    """One client connection, served by h2; behaviour picked by each request's token."""

    def __init__(self, sock, log):
        super().__init__(daemon=True)
        self.sock = sock
        self.log = log
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.requests = {}
        self.change = None

    def run(self):
        self.conn.initiate_connection()
        self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 16,
                                   h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 4})
        self.flush()
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                try:
                    events = self.conn.receive_data(data)
                except h2.exceptions.ProtocolError as error:
                    self.log(f"violation: the client broke HTTP/2: {error!r}")
                    self.flush()
                    break
                for event in events:
                    self.handle(event)
                self.flush()
        except OSError:
            pass
        finally:
            self.sock.close()

    def flush(self):
        data = self.conn.data_to_send()
        if self.change:
            data = transform(data, self.change)
            self.change = None
        if data:
            self.sock.sendall(data)

    def handle(self, event):
        if isinstance(event, h2.events.RequestReceived):
            self.requests[event.stream_id] = (dict(event.headers), 0)
        elif isinstance(event, h2.events.DataReceived):
            headers, size = self.requests[event.stream_id]
            self.requests[event.stream_id] = (headers, size + len(event.data))
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            self.answer(event.stream_id)
        elif isinstance(event, h2.events.SettingsAcknowledged):
            self.log("observed: the client acknowledged SETTINGS")
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.log(f"observed: client GOAWAY {CODES.get(event.error_code, event.error_code)} "
                     f"{(event.additional_data or b'').decode(errors='replace')}")

    def answer(self, stream_id):
        headers, size = self.requests.pop(stream_id)
        token = headers.get(":path", "").rsplit("/", 1)[-1]
        if token == "padded":
            self.change = pad_headers
            self.conn.send_headers(stream_id, [(":status", "200"), ("apns-id", "padded")])
            self.conn.send_data(stream_id, b"hello", end_stream=True, pad_length=40)
        elif token == "continuation":
            self.change = split_headers
            self.conn.send_headers(stream_id, [(":status", "200"), ("apns-id", "continued"), ("x-long", "y" * 300)], end_stream=True)
        elif token == "settings":
            self.conn.update_settings({h2.settings.SettingCodes.HEADER_TABLE_SIZE: 0,
                                       h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 2,
                                       h2.settings.SettingCodes.MAX_FRAME_SIZE: 32768})
            self.conn.send_headers(stream_id, [(":status", "200"), ("apns-id", "settings")], end_stream=True)
        elif token == "reset":
            self.conn.reset_stream(stream_id, h2.errors.ErrorCodes.REFUSED_STREAM)
        elif token == "goaway":
            self.conn.close_connection(h2.errors.ErrorCodes.ENHANCE_YOUR_CALM, b'{"reason":"TooManyRequests"}',
                                       last_stream_id=stream_id - 2)
        elif token == "protocol-error":
            self.flush()
            self.sock.sendall(raw_frame(0x9, 0x4, stream_id, b"\x88"))
        else:
            self.conn.send_headers(stream_id, [(":status", "200"), ("apns-id", f"id-{token}-{size}")], end_stream=True)


def serve():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    lock = threading.Lock()

    def log(line):
        with lock:
            print(line, flush=True)

    log(f"listening {listener.getsockname()[1]}")
    # Ends with its parent's stdin, so a crashed test leaves no server behind.
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    while True:
        sock, _ = listener.accept()
        ServerConnection(sock, log).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", nargs="?", choices=["check", "serve"], default="check")
    parser.add_argument("--liveline", default=os.path.join(ROOT, ".build", "debug", "liveline"))
    parser.add_argument("--skip-client", action="store_true", help="only check the mock")
    args = parser.parse_args()
    if args.mode == "serve":
        serve()
        return
    if not os.path.exists(args.liveline):
        subprocess.run(["swift", "build", "--product", "liveline"], cwd=ROOT, check=True)
    results = run_mock(args.liveline)
    if not args.skip_client:
        run = subprocess.run(["swift", "test", "--skip-build", "--filter", "PythonH2ServerTests"], cwd=ROOT,
                             capture_output=True, text=True)
        tail = "\n".join(run.stdout.strip().splitlines()[-15:])
        results.append(("the APNs client against the h2 server (swift test --filter PythonH2ServerTests)",
                        None if run.returncode == 0 else f"exit {run.returncode}:\n{tail}\n{run.stderr[-2000:]}"))
    failed = 0
    for name, error in results:
        print(("ok    " if error is None else "FAIL  ") + name)
        if error is not None:
            failed += 1
            print("      " + error.replace("\n", "\n      "))
    print(f"h2 conformance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
