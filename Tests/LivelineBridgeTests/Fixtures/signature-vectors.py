#!/usr/bin/env python3
"""Writes Tests/LivelineBridgeTests/Fixtures/signature-vectors.json: webhook signatures made by
code nobody here wrote, for the LivelineBridge verifiers to accept.

- Standard Webhooks `v1`: the official `standardwebhooks` package signs, and verifies what it signed.
- Standard Webhooks `v1a` (ed25519): that package has no v1a, so `cryptography`'s Ed25519 signs
  `{id}.{timestamp}.{body}` as the specification says, and verifies it.
- Stripe: `stripe.WebhookSignature.generate_signature_header` signs; `verify_header` checks.
- GitHub, Shopify, Square, the generic HMAC (Uber Direct among it): Python's `hmac`.

Keys are derived from fixed labels, so only the timestamps change between runs (the
standardwebhooks package checks them against the real clock). The Swift tests read the JSON
and need no Python.

    python3 -m pip install standardwebhooks stripe cryptography
    python3 Tests/LivelineBridgeTests/Fixtures/signature-vectors.py
"""
import base64
import hashlib
import hmac
import json
import pathlib
import time
from datetime import datetime, timezone
from importlib.metadata import version

import standardwebhooks
import stripe
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

OUT = pathlib.Path(__file__).resolve().parent / "signature-vectors.json"
NOW = int(time.time())

# Bodies as senders send them: compact and pretty JSON, non-ASCII text, and bytes that are not JSON.
BODIES = [
    b'{"kind":"event.delivery_status","id":"evt_1","status":"pickup","delivery_id":"del_42","data":{"dropoff_eta":"2026-11-23T12:30:00Z"}}',
    b'{\n  "type": "order.updated",\n  "data": { "id": "ord_7", "note": "caf\xc3\xa9 \xe2\x9c\x93" }\n}\n',
    b"not json at all; just text = signed bytes",
    b"",
]


def derived(label: str, size: int = 32) -> bytes:
    return hashlib.sha256(label.encode()).digest()[:size]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def entry(body: bytes, **fields):
    return {"bodyBase64": b64(body), **fields}


def standard_webhooks():
    out = []
    secrets = ["whsec_" + b64(derived(f"standard-webhooks secret {n}", 24 + 8 * n)) for n in range(2)]
    for n, body in enumerate(BODIES):
        if not body:
            continue
        msg_id = f"msg_liveline{n}"
        hooks = [standardwebhooks.Webhook(s) for s in secrets]
        stamp = datetime.fromtimestamp(NOW, tz=timezone.utc)
        signatures = [h.sign(msg_id, stamp, body.decode()) for h in hooks]
        header = {"webhook-id": msg_id, "webhook-timestamp": str(NOW)}
        # Sign with the old secret and the new one, as a sender does while rotating.
        header["webhook-signature"] = " ".join(signatures)
        for h in hooks:
            h.verify(body, header, json_parse=False)
        out.append(entry(body, secrets=secrets, id=msg_id, timestamp=NOW, signatures=signatures))
    return out


def standard_webhooks_ed25519():
    out = []
    key = Ed25519PrivateKey.from_private_bytes(derived("standard-webhooks ed25519 key"))
    public = key.public_key()
    public_text = "whpk_" + b64(public.public_bytes(Encoding.Raw, PublicFormat.Raw))
    for n, body in enumerate(BODIES):
        msg_id = f"msg_ed25519_{n}"
        signed = f"{msg_id}.{NOW}.".encode() + body
        signature = key.sign(signed)
        public.verify(signature, signed)  # raises if wrong
        out.append(entry(body, publicKey=public_text, id=msg_id, timestamp=NOW, signature="v1a," + b64(signature)))
    return out


def stripe_vectors():
    out = []
    secrets = ["whsec_" + derived(f"stripe secret {n}").hex() for n in range(2)]
    for body in BODIES:
        if not body:
            continue
        text = body.decode()
        headers = [stripe.WebhookSignature.generate_signature_header(text, s, timestamp=NOW) for s in secrets]
        # While a secret is rolled Stripe sends one v1 per secret in one header.
        v1s = [h.split(",", 1)[1] for h in headers]
        header = f"t={NOW}," + ",".join(v1s)
        for s in secrets:
            stripe.WebhookSignature.verify_header(text, header, s, tolerance=None)
        out.append(entry(body, secrets=secrets, timestamp=NOW, header=header))
    return out


def mac(name: str, key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, getattr(hashlib, name)).digest()


def github():
    secret = "liveline github secret"
    return [entry(b, secret=secret, header="sha256=" + mac("sha256", secret.encode(), b).hex()) for b in BODIES]


def shopify():
    secret = derived("shopify secret").hex()
    return [entry(b, secret=secret, header=b64(mac("sha256", secret.encode(), b))) for b in BODIES]


def square():
    key = "liveline-square-key"
    url = "https://bridge.example.com/v1/webhooks/square"
    return [entry(b, key=key, url=url, header=b64(mac("sha256", key.encode(), url.encode() + b))) for b in BODIES]


def generic():
    out = []
    body = BODIES[0]
    # Uber Direct: x-uber-signature, hex HMAC-SHA256 of the body.
    secret = "liveline-uber-signing-key"
    out.append(entry(body, name="uber-direct", header="x-uber-signature", algorithm="sha256", encoding="hex",
                     prefix="", parts=[{"body": True}], secret=secret,
                     signature=mac("sha256", secret.encode(), body).hex()))
    # SHA-1, base64, with a prefix.
    secret = "liveline-sha1"
    out.append(entry(BODIES[2], name="sha1-base64-prefix", header="X-Signature", algorithm="sha1", encoding="base64",
                     prefix="sha1=", parts=[{"body": True}], secret=secret,
                     signature="sha1=" + b64(mac("sha1", secret.encode(), BODIES[2]))))
    # SHA-512 hex over a timestamp header, ".", the body.
    secret = "liveline-sha512"
    signed = str(NOW).encode() + b"." + BODIES[1]
    out.append(entry(BODIES[1], name="sha512-timestamp", header="X-Webhook-Signature", algorithm="sha512",
                     encoding="hex", prefix="", secret=secret, timestampHeader="X-Webhook-Timestamp", timestamp=NOW,
                     parts=[{"header": "X-Webhook-Timestamp"}, {"literal": "."}, {"body": True}],
                     signature=mac("sha512", secret.encode(), signed).hex()))
    # The URL the request went to, then the body.
    secret = "liveline-url"
    url = "https://bridge.example.com/v1/webhooks/generic?x=1"
    out.append(entry(body, name="url-and-body", header="X-Signature", algorithm="sha256", encoding="base64",
                     prefix="", parts=[{"url": True}, {"body": True}], secret=secret, url=url,
                     signature=b64(mac("sha256", secret.encode(), url.encode() + body))))
    return out


def main():
    vectors = {
        "generatedBy": "Tests/LivelineBridgeTests/Fixtures/signature-vectors.py",
        "peers": {p: version(p) for p in ("standardwebhooks", "stripe", "cryptography")},
        "standardWebhooks": standard_webhooks(),
        "standardWebhooksEd25519": standard_webhooks_ed25519(),
        "stripe": stripe_vectors(),
        "github": github(),
        "shopify": shopify(),
        "square": square(),
        "generic": generic(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(vectors, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
