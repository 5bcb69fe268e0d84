#!/usr/bin/env python3
"""A small sports feed in the style of Sportradar's push feeds, for trying and testing the
bridge's stream sources: a long-lived HTTP/1.1 response (chunked) carrying one JSON event per
line, or Server-Sent Events, with heartbeats, nothing replayed after a reconnect, and a REST
timeline that gives back what a client missed. Python 3 standard library only.

    python3 scripts/stream-feed.py --events Scenarios/sources/sportradar/match.ndjson --auto 5
        # publishes one event every 5 s; prints `listening PORT`

Endpoints:
    GET  /stream             the live stream (events published from now on); ndjson or sse
    GET  /timeline           every event published so far: {"generated_at": ..., "timeline": [...]}
                             (?since_id=ID: only those after that event id)
    POST /control/emit?n=N   publish the next N events of --events; answers how many it published
                             now, so far, and in all: {"emitted": 3, "published": 4, "total": 25}
    POST /control/cut        close every live stream now (a cut mid-match)
    POST /control/stall      live streams go silent (no events, no heartbeats) but stay open
    POST /control/refuse?on=1|0   answer new streams 503 (while "down"), or accept them again
    GET  /control/state      JSON: published count, open streams, requests seen

With --tls-cert and --tls-key it serves https. With --api-key KEY, /stream and /timeline want
the header `x-api-key: KEY` (else 401).
With --state FILE, how many events were published is kept in FILE, so a restarted server
(same --port) goes on where it was; --refusing starts it answering streams 503. In SSE mode a client's `Last-Event-ID` is recorded but,
like Sportradar's feeds, nothing is replayed.
"""

import argparse
import json
import os
import signal
import socket
import ssl
import sys
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


class Feed:
    """The published events and the live connections, shared by the handler threads."""

    def __init__(self, events, state_file, heartbeat, fmt, api_key):
        self.events = events
        self.state_file = state_file
        self.heartbeat = heartbeat
        self.format = fmt
        self.api_key = api_key
        self.lock = threading.Condition()
        self.published = 0
        self.refusing = False
        self.streams = {}  # id -> {"stalled": bool, "cut": bool}
        self.next_stream = 0
        self.requests = []
        if state_file and os.path.exists(state_file):
            with open(state_file, encoding="utf-8") as f:
                self.published = min(int(f.read().strip() or 0), len(events))

    def emit(self, count):
        """Publishes the next `count` events (fewer when the file runs out); returns how many."""
        with self.lock:
            before = self.published
            self.published = min(self.published + count, len(self.events))
            if self.state_file:
                with open(self.state_file, "w", encoding="utf-8") as f:
                    f.write(str(self.published))
            self.lock.notify_all()
            return self.published - before

    def cut(self):
        with self.lock:
            for stream in self.streams.values():
                stream["cut"] = True
            self.lock.notify_all()
            return len(self.streams)

    def stall(self):
        with self.lock:
            for stream in self.streams.values():
                stream["stalled"] = True
            self.lock.notify_all()
            return len(self.streams)


def event_id(event):
    return str(event.get("payload", {}).get("event", {}).get("id", ""))


def event_type(event):
    return str(event.get("payload", {}).get("event", {}).get("type", "message"))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    feed = None  # set in main

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body, content_type="application/json"):
        # JSON answers end with a newline, so a shell's prompt does not run onto them.
        data = body if isinstance(body, bytes) else json.dumps(body).encode() + b"\n"
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        if self.feed.api_key and self.headers.get("x-api-key") != self.feed.api_key:
            self.answer(401, {"message": "Invalid API key"})
            return False
        return True

    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        with self.feed.lock:
            self.feed.requests.append({"path": self.path, "last-event-id": self.headers.get("Last-Event-ID")})
        if url.path == "/stream":
            self.stream()
        elif url.path == "/timeline":
            if not self.authorized():
                return
            with self.feed.lock:
                published = self.feed.events[: self.feed.published]
            since = query.get("since_id", [""])[0]
            ids = [event_id(e) for e in published]
            if since and since in ids:
                published = published[ids.index(since) + 1:]
            now = datetime.now(timezone.utc).isoformat(timespec="seconds")
            self.answer(200, {"generated_at": now, "timeline": published})
        elif url.path == "/control/state":
            with self.feed.lock:
                self.answer(200, {"published": self.feed.published, "total": len(self.feed.events),
                                  "streams": len(self.feed.streams), "requests": self.feed.requests})
        else:
            self.answer(404, {"message": "no such path"})

    def do_POST(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if url.path == "/control/emit":
            emitted = self.feed.emit(int(query.get("n", ["1"])[0]))
            with self.feed.lock:
                self.answer(200, {"emitted": emitted, "published": self.feed.published,
                                  "total": len(self.feed.events)})
        elif url.path == "/control/cut":
            self.answer(200, {"cut": self.feed.cut()})
        elif url.path == "/control/stall":
            self.answer(200, {"stalled": self.feed.stall()})
        elif url.path == "/control/refuse":
            with self.feed.lock:
                self.feed.refusing = query.get("on", ["1"])[0] == "1"
            self.answer(200, {"refusing": self.feed.refusing})
        else:
            self.answer(404, {"message": "no such path"})

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def frame(self, event):
        if self.feed.format == "sse":
            data = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
            return f"id: {event_id(event)}\nevent: {event_type(event)}\ndata: {data}\n\n".encode()
        return (json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n").encode()

    def beat(self):
        if self.feed.format == "sse":
            return b": heartbeat\n\n"
        return (json.dumps({"heartbeat": {"interval": self.feed.heartbeat}}) + "\n").encode()

    def stream(self):
        if not self.authorized():
            return
        feed = self.feed
        with feed.lock:
            if feed.refusing:
                refusing = True
            else:
                refusing = False
                sent = feed.published
                mine = feed.next_stream
                feed.next_stream += 1
                feed.streams[mine] = {"stalled": False, "cut": False}
        if refusing:
            self.answer(503, {"message": "Service temporarily unavailable"})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if feed.format == "sse" else "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        last_beat = time.monotonic()
        try:
            while True:
                with feed.lock:
                    feed.lock.wait(timeout=feed.heartbeat / 4)
                    state = feed.streams[mine]
                    if state["cut"]:
                        break
                    stalled = state["stalled"]
                    fresh = [] if stalled else feed.events[sent: feed.published]
                    if not stalled:
                        sent = feed.published
                if stalled:
                    continue
                for event in fresh:
                    self.chunk(self.frame(event))
                if time.monotonic() - last_beat >= feed.heartbeat:
                    self.chunk(self.beat())
                    last_beat = time.monotonic()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            with feed.lock:
                feed.streams.pop(mine, None)
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.close_connection = True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed)")
    parser.add_argument("--events", required=True, help="newline-delimited JSON, one event a line, in match order")
    parser.add_argument("--format", choices=["ndjson", "sse"], default="ndjson")
    parser.add_argument("--heartbeat", type=float, default=5.0, help="seconds between heartbeats")
    parser.add_argument("--api-key", help="require x-api-key: KEY")
    parser.add_argument("--state", help="keep the published count here across restarts")
    parser.add_argument("--auto", type=float, help="publish one event every this many seconds")
    parser.add_argument("--tls-cert", help="serve https with this PEM certificate (and --tls-key)")
    parser.add_argument("--tls-key", help="the certificate's PEM private key")
    parser.add_argument("--refusing", action="store_true",
                        help="start by answering new streams 503 (until POST /control/refuse?on=0)")
    args = parser.parse_args()

    with open(args.events, encoding="utf-8") as f:
        events = [json.loads(line) for line in f if line.strip()]
    # Stop at once on SIGTERM or SIGINT, whatever the parent left them set to; open streams end
    # with the process, as when a real feed goes down.
    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, lambda *_: os._exit(0))
    Handler.feed = Feed(events, args.state, args.heartbeat, args.format, args.api_key)
    Handler.feed.refusing = args.refusing
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"listening {server.server_address[1]}", flush=True)
    if args.auto:
        def publish():
            while Handler.feed.published < len(events):
                time.sleep(args.auto)
                Handler.feed.emit(1)
        threading.Thread(target=publish, daemon=True).start()
    server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    sys.exit(main())
