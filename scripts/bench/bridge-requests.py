#!/usr/bin/env python3
"""Pre-signs webhook requests for scripts/bench/bridge.lua: one line per request,
`id<TAB>timestamp<TAB>signature<TAB>body`, each a distinct Standard Webhooks message (its own
webhook-id and sequence), so every request the bridge acknowledges is a new event it must
store durably, not a duplicate. Sequences grow across files too (they start from the clock), so
a later file's events are newer than an earlier one's and are applied, not superseded.

    scripts/bench/bridge-requests.py COUNT ACTIVITIES OUT
"""
import base64, hashlib, hmac, sys, time

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def main():
    count, activities, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    key = base64.b64decode(SECRET[len("whsec_"):])
    ts = str(int(time.time()))
    run = hashlib.sha256(ts.encode()).hexdigest()[:8]
    base = int(time.time() * 1000) * 1000
    with open(out, "w") as f:
        for n in range(count):
            activity, step = n % activities, n // activities
            body = ('{"type":"order.eta","data":{"order_id":"order-%d","sequence":%d,"minutes_left":%d}}'
                    % (activity, base + step, 100000 - step))
            msg_id = f"msg_{run}_{n}"
            mac = hmac.new(key, f"{msg_id}.{ts}.{body}".encode(), hashlib.sha256).digest()
            f.write(f"{msg_id}\t{ts}\tv1,{base64.b64encode(mac).decode()}\t{body}\n")


if __name__ == "__main__":
    main()
