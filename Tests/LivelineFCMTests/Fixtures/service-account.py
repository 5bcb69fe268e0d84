#!/usr/bin/env python3
"""A peer for Liveline's FCM assertion, written with Python's `cryptography` (pip install cryptography).

    service-account.py make FILE                 writes a service-account key file as Google's console
                                                 does: a fresh RSA 2048 key in PKCS#8 PEM, and its fields
    service-account.py verify FILE JWT           checks the JWT's RS256 signature with the file's key and
                                                 prints {"header": …, "claims": …}; exits 1 if it is wrong
    service-account.py assertion FILE AUD NOW    signs an assertion itself (issued at NOW), for the mock's verifier
"""

import base64
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def load_key(path):
    with open(path) as handle:
        account = json.load(handle)
    return account, serialization.load_pem_private_key(account["private_key"].encode(), password=None)


def make(path):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    account = {
        "type": "service_account",
        "project_id": "liveline-test",
        "private_key_id": "4f1c0ffee0ddba11",
        "private_key": pem,
        "client_email": "fcm-sender@liveline-test.iam.gserviceaccount.com",
        "client_id": "113356709839876543210",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
        "universe_domain": "googleapis.com",
    }
    with open(path, "w") as handle:
        json.dump(account, handle, indent=2)


def verify(path, jwt):
    _, key = load_key(path)
    header, claims, signature = jwt.split(".")
    try:
        key.public_key().verify(
            unb64url(signature), f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256()
        )
    except InvalidSignature:
        print("invalid signature")
        sys.exit(1)
    print(json.dumps({"header": json.loads(unb64url(header)), "claims": json.loads(unb64url(claims))}))


def assertion(path, audience, now):
    account, key = load_key(path)
    header = {"alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]}
    claims = {
        "iss": account["client_email"],
        "scope": "https://www.googleapis.com/auth/firebase.messaging",
        "aud": audience,
        "iat": now,
        "exp": now + 3600,
    }
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    print(f"{signing_input}.{b64url(signature)}")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "make":
        make(sys.argv[2])
    elif command == "verify":
        verify(sys.argv[2], sys.argv[3])
    elif command == "assertion":
        assertion(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(f"unknown command {command}")
