#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus into scripts/fuzz/corpus/<target>/.

The HTTP/2 and HPACK seeds are made by Python's h2 and hpack (peers nobody here wrote), so the
fuzzers start from byte streams a real client or server sends. Run it again after changing a
target's input format; the corpus is small and kept in git.
"""
import json
import os
import shutil
import sys

import h2.config
import h2.connection
import hpack

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "scripts", "fuzz", "corpus")


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def pieces(stream, size=50):
    """The targets' piece format: a length byte (1 + n % 64 or % 128 bytes follow), then the bytes."""
    out = bytearray()
    for i in range(0, len(stream), size):
        chunk = stream[i:i + size]
        out.append(len(chunk) - 1)
        out += chunk
    return bytes(out)


PUSH_BODY = json.dumps({"aps": {"event": "update", "timestamp": 1795464000,
                                "content-state": {"home": 1, "away": 0, "minute": 23}}}).encode()


def client_bytes(preface):
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    data = conn.data_to_send()
    if not preface:
        data = data[len(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"):]
    headers = [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + "ab" * 32),
               (":authority", "api.push.apple.com"), ("apns-push-type", "liveactivity"),
               ("apns-topic", "com.example.app.push-type.liveactivity"), ("apns-priority", "10"),
               ("content-length", str(len(PUSH_BODY)))]
    for stream in (1, 3):
        conn.send_headers(stream, headers)
        conn.send_data(stream, PUSH_BODY, end_stream=True)
    conn.ping(b"12345678")
    conn.close_connection()
    return data + conn.data_to_send()


def server_bytes():
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    conn.initiate_connection()
    conn.receive_data(client.data_to_send())
    for stream in (1, 3):
        client.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":path", "/3/device/aa"),
                                     (":authority", "x")], end_stream=True)
    conn.receive_data(client.data_to_send())
    conn.send_headers(1, [(":status", "200"), ("apns-id", "E4C2E1F0-0000-0000-0000-000000000001")], end_stream=True)
    body = json.dumps({"reason": "BadDeviceToken"}).encode()
    conn.send_headers(3, [(":status", "400"), ("apns-id", "E4C2E1F0-0000-0000-0000-000000000002"),
                          ("content-length", str(len(body)))])
    conn.send_data(3, body, end_stream=True)
    conn.close_connection(error_code=11, additional_data=b"too many requests")
    return conn.data_to_send()


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    scenarios = os.path.join(ROOT, "Scenarios")
    for name in sorted(os.listdir(scenarios)):
        if name.endswith(".yaml") and name != "bridge.example.yaml":
            with open(os.path.join(scenarios, name), "rb") as f:
                write("scenario", name, f.read())
    for i, template in enumerate(["{{ state.score + 1 }}", "{{ random(1, 40) / 10 }}", "Goal {{ minute }}' {{ pick(\"a\", \"b\") }}",
                                  "{{ (n * 2 - 1) % 3 }}", "{{ activity + \" at \" + minute }}", "{{ -(-(-1)) }}"]):
        write("template", f"seed-{i}", bytes([i % 3]) + template.encode())
    for i, doc in enumerate([PUSH_BODY.decode(), '{"a":[1,2.5e3,-0.0,true,false,null,"\\u00e9\\ud83d\\ude00"]}',
                             '[[[[[]]]]]', '{"k":"v","k":"w"}', ' 12 ', '"\\"\\\\\\/\\b\\f\\n\\r\\t"']):
        write("json", f"seed-{i}", doc)
    write("http2-core", "server-side", b"\x00" + pieces(client_bytes(preface=True)))
    write("http2-core", "client-side", b"\x01" + pieces(server_bytes()))
    write("mock-connection", "two-pushes", pieces(client_bytes(preface=False)))
    write("client-connection", "two-answers", pieces(server_bytes()))
    encoder = hpack.Encoder()
    blocks = bytearray()
    for headers in ([(":status", "200"), ("apns-id", "abc")], [(":method", "POST"), (":path", "/3/device/aa"),
                                                               ("apns-topic", "com.example"), ("x-long", "v" * 100)],
                    [(":status", "200"), ("apns-id", "abd")]):
        block = encoder.encode(headers)
        blocks.append(len(block))
        blocks += block
    write("hpack", "three-blocks", bytes(blocks))
    write("jwt", "signed-claims", b"\x00" + b'{"alg":"ES256","kid":"FUZZKEY123"}\n{"iss":"FUZZTEAM12","iat":1795464000}')
    write("jwt", "string-iat", b"\x00" + b'{"alg":"ES256","kid":"FUZZKEY123","typ":"JWT"}\n{"iss":"FUZZTEAM12","iat":"1795464000.5"}')
    write("jwt", "raw", "eyJhbGciOiJFUzI1NiIsImtpZCI6IkZVWlpLRVkxMjMifQ.eyJpc3MiOiJGVVpaVEVBTTEyIiwiaWF0IjoxfQ.AAAA")
    body = '{"type":"order.eta","data":{"order_id":"58213","sequence":3,"eta":"2026-11-23T20:30:00Z","minutes_left":12}}'
    for scheme in range(10):
        for signed in (0, 1):
            write("webhook-verification", f"scheme-{scheme}-{'signed' if signed else 'unsigned'}",
                  bytes([scheme * 2 + signed]) + b"content-type: application/json\nwebhook-id: msg_1\nx-timestamp: 1795464000\n\n" + body.encode())
    mapping = [
        (0, "authorization: Bearer dd-fuzz", {"event_name": "DASHER_PICKED_UP", "external_delivery_id": "D-1",
                                              "created_at": "2026-11-23T20:00:00Z", "dropoff_time_estimated": "2026-11-23T20:30:00Z"}),
        (0, "authorization: Bearer dd-fuzz", {"event_name": "DELIVERY_CANCELLED", "external_delivery_id": "D-1"}),
        (1, "x-uber-signature: 00", {"kind": "event.delivery_status", "id": "e1", "status": "pickup_complete",
                                     "created": 1795464000, "delivery_id": "del_1", "data": {"dropoff_eta": 1795466000}}),
        (2, "webhook-id: msg_1", json.loads(body)),
        (2, "webhook-id: msg_2", {"type": "order.note", "data": {"order_id": "58213", "sequence": 4, "note": "Gate 3"}}),
    ]
    for i, (source, header, doc) in enumerate(mapping):
        write("webhook-mapping", f"seed-{i}", bytes([source]) + f"{header}\n\n".encode() + json.dumps(doc).encode())
    with open(os.path.join(scenarios, "bridge.example.yaml"), "rb") as f:
        write("bridge-configuration", "example.yaml", f.read())
    print(f"seeds written to {os.path.relpath(CORPUS, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
