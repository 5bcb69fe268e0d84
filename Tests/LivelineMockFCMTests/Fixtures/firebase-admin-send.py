"""Sends to the mock FCM with the Firebase Admin SDK for Python, as a backend would.

    python3 firebase-admin-send.py FCM_BASE_URL SERVICE_ACCOUNT.json TOKEN GONE_TOKEN OTHER_PROJECTS_TOKEN BUSY_TOKEN \
        OVER_QUOTA_TOKEN

The SDK gets its access token from the service account's token_uri (google-auth signs the
assertion) and sends to FCM_BASE_URL instead of fcm.googleapis.com. Prints one JSON object: the
names FCM gave, and for each error case the SDK's exception class and message.
"""

import json
import sys

import firebase_admin
from firebase_admin import credentials, exceptions, messaging


def main():
    base, account, token, gone, other, busy, over = sys.argv[1:8]
    # The SDK's FCM address is a class constant; the token endpoint comes from the key file.
    messaging._MessagingService.FCM_URL = base + "/v1/projects/{0}/messages:send"
    firebase_admin.initialize_app(credentials.Certificate(account))

    live_update = {
        "liveline": "1", "activity": "match", "event": "update", "timestamp": "1800000000000",
        "channel": "live-updates", "style": "progress", "title": "Northbridge 1-0 Harbour",
        "chip": "1-0", "progress": "23", "progress_max": "90",
    }
    android = messaging.AndroidConfig(priority="high", ttl=300, collapse_key="match")
    out = {}
    out["name"] = messaging.send(messaging.Message(token=token, data=live_update, android=android))
    out["dry_run"] = messaging.send(messaging.Message(token=token, data=live_update), dry_run=True)

    def failure(message):
        try:
            messaging.send(message)
        except exceptions.FirebaseError as error:
            return {"class": type(error).__name__, "code": error.code, "message": str(error)}
        return None

    out["unregistered"] = failure(messaging.Message(token=gone, data={"a": "b"}))
    out["sender_id_mismatch"] = failure(messaging.Message(token=other, data={"a": "b"}))
    out["reserved_key"] = failure(messaging.Message(token=token, data={"from": "x"}))
    # Faults the test injected: BUSY_TOKEN's first send answers 429 QUOTA_EXCEEDED with
    # Retry-After (the SDK waits and sends again), OVER_QUOTA_TOKEN's 429 without it (it gives up).
    out["after_retry"] = messaging.send(messaging.Message(token=busy, data={"a": "b"}))
    out["quota"] = failure(messaging.Message(token=over, data={"a": "b"}))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
