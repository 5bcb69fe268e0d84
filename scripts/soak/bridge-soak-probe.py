#!/usr/bin/env python3
"""Webhook latency while the store prunes, for scripts/soak/bridge-soak.sh.

Beside the soak's load, sends RATE signed webhooks a second (Standard Webhooks, the soak's
`orders` source) to ACTIVITIES activities of its own (probe-0 … probe-N, which it registers), on
one keep-alive connection, timing each from its first byte out to its answer. Every 0.25 s it
reads the bridge's `liveline_store_pruned_rows_total`; the pruner counts each batch as it
commits, so a sample that rose marks the 0.25 s before it as part of a prune round. When the
run ends, the webhooks sent inside a prune round (widened by one sample on each side) and those
sent outside are summarised apart: count, p50, p99 and max, and the ratio of the two p99s, and
how far into its round each of the slowest 1% inside came. OUT.json.raw keeps every webhook's
send time and latency, and the rounds.

    scripts/soak/bridge-soak-probe.py PORT SECONDS RATE OUT.json
"""
import base64, bisect, hashlib, hmac, http.client, json, re, sys, threading, time, urllib.request

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
ACTIVITIES = 10
POLL = 0.25


def register(port):
    for n in range(ACTIVITIES):
        token = hashlib.sha256(f"probe-{n}".encode()).hexdigest()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/activities/probe-{n}", method="PUT",
            data=json.dumps({"update-token": token, "source": "orders"}).encode(),
            headers={"authorization": "Bearer bench-key", "content-type": "application/json"})
        urllib.request.urlopen(request).read()


def pruned_total(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return sum(float(m.group(1)) for m in re.finditer(r'^liveline_store_pruned_rows_total\{[^}]*\} (\S+)$', text, re.M))


def poll(port, until, samples):
    while time.monotonic() < until:
        try:
            samples.append((time.monotonic(), pruned_total(port)))
        except OSError:
            pass
        time.sleep(POLL)


def summary(latencies):
    if not latencies:
        return {"count": 0}
    ordered = sorted(latencies)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return {"count": len(ordered), "p50_ms": round(pick(0.5), 2), "p99_ms": round(pick(0.99), 2),
            "max_ms": round(ordered[-1], 2)}


def main():
    port, seconds, rate, out = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    register(port)
    key = base64.b64decode(SECRET[len("whsec_"):])
    run = hashlib.sha256(str(time.time()).encode()).hexdigest()[:8]
    start = time.monotonic()
    until = start + seconds
    samples = []
    poller = threading.Thread(target=poll, args=(port, until, samples), daemon=True)
    poller.start()
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
    sent, failures, n = [], 0, 0
    while True:
        slot = start + n / rate
        if slot >= until:
            break
        delay = slot - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        body = ('{"type":"order.eta","data":{"order_id":"probe-%d","sequence":%d,"minutes_left":%d}}'
                % (n % ACTIVITIES, n, 100000 - n))
        msg_id, ts = f"probe_{run}_{n}", str(int(time.time()))
        mac = hmac.new(key, f"{msg_id}.{ts}.{body}".encode(), hashlib.sha256).digest()
        headers = {"content-type": "application/json", "webhook-id": msg_id, "webhook-timestamp": ts,
                   "webhook-signature": "v1," + base64.b64encode(mac).decode()}
        began = time.monotonic()
        try:
            connection.request("POST", "/v1/webhooks/orders", body=body, headers=headers)
            answer = connection.getresponse()
            answer.read()
            if answer.status >= 300:
                failures += 1
        except (OSError, http.client.HTTPException):
            failures += 1
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
            n += 1
            continue
        sent.append((began, (time.monotonic() - began) * 1000))
        n += 1
    poller.join()
    rising = [samples[i][0] for i in range(1, len(samples)) if samples[i][1] > samples[i - 1][1]]
    windows = []
    for t in rising:
        if windows and t - 2 * POLL <= windows[-1][1]:
            windows[-1] = (windows[-1][0], t + POLL)
        else:
            windows.append((t - 2 * POLL, t + POLL))
    starts = [w[0] for w in windows]

    def pruning(t):
        i = bisect.bisect_right(starts, t) - 1
        return i >= 0 and t <= windows[i][1]

    inside = [ms for t, ms in sent if pruning(t)]
    outside = [ms for t, ms in sent if not pruning(t)]
    result = {"rate": rate, "seconds": seconds, "failures": failures,
              "prune_window_seconds": round(sum(b - a for a, b in windows), 1),
              "while_pruning": summary(inside), "otherwise": summary(outside)}
    if inside and outside:
        result["p99_ratio"] = round(result["while_pruning"]["p99_ms"] / result["otherwise"]["p99_ms"], 2)
    # Where in its round each of the slowest 1% inside fell: a cluster at a round's start points
    # at its first batch, an even spread at the batches throughout.
    slowest = sorted(((ms, t) for t, ms in sent if pruning(t)), reverse=True)[:max(1, len(inside) // 100)]
    offsets = [t - starts[bisect.bisect_right(starts, t) - 1] for _, t in slowest] if inside else []
    result["slowest_while_pruning_seconds_into_round"] = sorted(round(o, 2) for o in offsets)
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    with open(out + ".raw", "w") as f:
        json.dump({"windows": windows, "sent": sent}, f)
    print(f"probe webhooks while pruning: {result['while_pruning']}")
    print(f"probe webhooks otherwise:     {result['otherwise']}")
    if "p99_ratio" in result:
        print(f"p99 while pruning / otherwise: {result['p99_ratio']}x "
              f"({result['prune_window_seconds']} s of prune rounds, {failures} failures)")
    if offsets:
        early = sum(1 for o in offsets if o < 1)
        print(f"slowest 1% while pruning: {early} of {len(offsets)} in the first second of a round")


if __name__ == "__main__":
    main()
