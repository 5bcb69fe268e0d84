#!/usr/bin/env python3
"""Crash test of the webhook bridge: nothing acknowledged is lost, nothing is applied twice,
and each activity's pushes stay in order, across a `kill -9` in the middle of a burst.

It runs the real programs: `liveline mock-apns` (its own process, so its history survives the
bridge), and one or two `liveline bridge serve` on one store. It registers ACTIVITIES
activities, then posts EVENTS signed Standard Webhooks to each (sequence 1..EVENTS, each
setting `minutesLeft` to 1000 - sequence), from many threads, and `kill -9`s a bridge once a
third of them were acknowledged. Webhooks that got no 2xx are posted again once a bridge is back
(as a real sender retries), and a sample of acknowledged ones is posted again too (duplicates).
When the bridges are idle it checks, from the mock's own history, for every activity:

- its last push shows the state of its highest acknowledged sequence (every 2xx took effect);
- `minutesLeft` strictly falls and `aps.timestamp` strictly rises from push to push (order
  held; nothing applied twice, which would repeat a value or go back).

One repeat is expected and allowed: a push that APNs answered while its bridge was being
killed, before the answer was stored, is sent again by the bridge that takes over (nothing can
know it arrived). It is the same push, byte for byte, with the same `aps.timestamp`, so the
device drops it as not newer (`dropped-old`); such repeats are counted, not taken as shown.

With --faults the mock misbehaves throughout (the fault soak of SECURITY.md): 2.5% of pushes
get 500 InternalServerError and 2.5% 503 ServiceUnavailable, every connection is closed with
GOAWAY after 2,000 requests, and until the bridges are idle it adds, in turn, 4 s apart: 200 ms
of latency on every answer (5 s), a 429 TooManyRequests burst (3 s) and a 503 Shutdown window
(5 s). The bridge retries by reason;
pushes whose retries ran out are dead letters, listed with their reasons and replayed with
`liveline bridge dead-letters`, and the checks above then hold for every activity. --rate
paces the sending (webhooks/s) so that the burst lasts long enough to meet the faults.

With --sigterm it is a deploy, not a crash: the mock answers every push after 300 ms
(--latency), and while the webhooks come (--rate) each bridge in turn is stopped with SIGTERM
and started again, --restarts times (a rolling restart with --instances 2 on PostgreSQL; with
one instance, stop then start). The sender retries a webhook that got no 2xx after 200 ms, as
real senders do. Besides the checks above it requires:

- each stop drained and exited 0 within the drain deadline (--drain-timeout);
- no push was sent twice (no repeat, not even one the device would drop): pushes in flight at
  the stop were answered and recorded before the exit;
- no stall: every acknowledged webhook's state reached the mock within the drain deadline of
  its acknowledgement (pushes at most 1 s apart here); a push left claimed by a stopped
  instance would wait out its lease (60 s);
- webhooks sent to a draining bridge were answered 503 with Retry-After (counted);
- held pushes go out on time (--held N, 300 by default; 0 leaves it out): once the burst is
  over, N activities get one more webhook each, which is pushed at once, and a second one
  that the engine holds for min-interval (1 s), and bridge 0 is stopped with SIGTERM 0.1 s
  later and started again at once (with two instances the other one is up throughout). Every
  held push must reach the mock within 2 s of its due time (the first push's arrival plus 1 s)
  or of the restarted bridge's readiness, whichever is later, and none twice.

    scripts/soak/bridge-crash-test.py [--store postgres://…] [--instances 2] [--activities 1000] [--events 10]
    scripts/soak/bridge-crash-test.py --faults --rate 200 [--events 30]
    scripts/soak/bridge-crash-test.py --sigterm --activities 300 --events 20 --rate 150 [--restarts 4]
"""
import argparse, base64, hashlib, hmac, http.client, json, os, random, re, signal, subprocess, sys, tempfile
from collections import Counter
import threading, time, urllib.request
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
API_KEY = "crash-test-key"


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read()
        except Exception:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer within {timeout}s")


def sign(body, msg_id, ts):
    key = base64.b64decode(SECRET[len("whsec_"):])
    sig = base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()).decode()
    return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": "v1," + sig,
            "content-type": "application/json"}


class Poster(threading.local):
    """One keep-alive HTTP/1.1 connection per thread, reconnecting after a failure."""

    def post(self, port, path, body, headers):
        """The answer's status; 0 when there was none."""
        return self.post_answer(port, path, body, headers)[0]

    def post_answer(self, port, path, body, headers):
        """(status, headers, body) of the answer; (0, {}, b"") when there was none."""
        conn = getattr(self, "conns", {}).get(port)
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                self.conns = getattr(self, "conns", {})
                self.conns[port] = conn
            conn.request("POST", path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        except Exception:
            if conn is not None:
                conn.close()
            getattr(self, "conns", {}).pop(port, None)
            return 0, {}, b""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--liveline", default=os.path.join(ROOT, ".build/debug/liveline"))
    parser.add_argument("--store", default=None, help="postgres://… (default: a new SQLite file)")
    parser.add_argument("--instances", type=int, default=1)
    parser.add_argument("--activities", type=int, default=1000)
    parser.add_argument("--events", type=int, default=10)
    parser.add_argument("--threads", type=int, default=32)
    parser.add_argument("--faults", action="store_true", help="errors, GOAWAYs, latency, 429s and a shutdown window at the mock")
    parser.add_argument("--rate", type=float, default=0, help="webhooks a second (0: as fast as the threads go)")
    parser.add_argument("--sigterm", action="store_true",
                        help="rolling restarts with SIGTERM under load and a slow mock, instead of a kill -9")
    parser.add_argument("--restarts", type=int, default=4, help="with --sigterm: how many stops and starts")
    parser.add_argument("--held", type=int, default=300,
                        help="with --sigterm: activities whose held push is stopped with SIGTERM (0: none)")
    parser.add_argument("--latency", default="300ms", help="with --sigterm: the mock's latency on every answer")
    parser.add_argument("--drain-timeout", type=float, default=10, help="with --sigterm: the bridges' drain-timeout, seconds")
    parser.add_argument("--rss-every", type=float, default=0,
                        help="sample the resident memory of bridge 0 and the mock every this many seconds (0: never)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="liveline-crash-")
    store = args.store or f"sqlite:{work}/bridge.sqlite"
    mock_port, inspect_port = free_port(), free_port()
    ports = [free_port() for _ in range(args.instances)]
    ca = f"{work}/mock.pem"
    logs = open(f"{work}/processes.log", "w")
    mock = subprocess.Popen([args.liveline, "mock-apns", "--listen", f"127.0.0.1:{mock_port}", "--write-ca", ca,
                             "--inspect", f"127.0.0.1:{inspect_port}", "--history", "1000", "--keep-payloads",
                             "--accept-any-token"], stdout=logs, stderr=logs)
    wait_http(f"http://127.0.0.1:{inspect_port}/stats")
    faults = Faults(inspect_port) if args.faults else None
    if faults:
        faults.post({})
    if args.sigterm:
        request = urllib.request.Request(f"http://127.0.0.1:{inspect_port}/faults", method="POST",
                                         data=json.dumps({"latency": args.latency}).encode(),
                                         headers={"content-type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()
    scenario = f"{ROOT}/Scenarios/delivery.yaml"
    if args.sigterm:
        # Pushes at most a second apart (not delivery.yaml's 15 s), so a stall stands out.
        scenario = f"{work}/delivery.yaml"
        with open(f"{ROOT}/Scenarios/delivery.yaml") as source, open(scenario, "w") as copy:
            copy.write(source.read().replace("min-interval: 15s", "min-interval: 1s"))

    config = f"{work}/bridge.yaml"

    def write_config(port):
        path = f"{work}/bridge-{port}.yaml"
        with open(path, "w") as f:
            f.write(f"""liveline-bridge: 1
listen: 127.0.0.1:{port}
store: {store}
drain-timeout: {args.drain_timeout:g}s
api-keys: [sha256:{hashlib.sha256(API_KEY.encode()).hexdigest()}]
sources:
  orders:
    verify: standard-webhooks
    secrets: [env:CRASH_TEST_SECRET]
    event-id: header:webhook-id
    event-type: /type
    activity-key: /data/order_id
    order-key: /data/sequence
    order: sequence
    scenario: {scenario}
    events:
      order.eta:
        set: {{ minutesLeft: /data/minutes_left }}
""")
        return path

    env = dict(os.environ, CRASH_TEST_SECRET=SECRET)
    bridges = {}

    def start(index):
        port = ports[index]
        bridges[index] = subprocess.Popen(
            [args.liveline, "bridge", "serve", "--config", write_config(port), "--apns-url", f"https://127.0.0.1:{mock_port}",
             "--ca-file", ca, "--instance", f"crash-{index}-{time.time_ns()}", "--lease", "30s" if args.sigterm else "5s"],
            stdout=logs, stderr=logs, env=env)
        wait_http(f"http://127.0.0.1:{port}/healthz")

    for index in range(args.instances):
        start(index)

    tokens = {f"order-{n}": hashlib.sha256(f"token-{n}".encode()).hexdigest() for n in range(args.activities)}
    for key, token in tokens.items():
        request = urllib.request.Request(f"http://127.0.0.1:{ports[0]}/v1/activities/{key}", method="PUT",
                                         data=json.dumps({"update-token": token, "source": "orders"}).encode(),
                                         headers={"authorization": f"Bearer {API_KEY}", "content-type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()

    webhooks = []
    for sequence in range(1, args.events + 1):
        for key in tokens:
            body = json.dumps({"type": "order.eta", "data": {"order_id": key, "sequence": sequence,
                                                             "minutes_left": 1000 - sequence}}).encode()
            webhooks.append((key, sequence, f"msg_{key}_{sequence}", body))
    acknowledged = {}
    lock = threading.Lock()
    killed = threading.Event()
    poster = Poster()

    pace = Pace(args.rate)

    acknowledged_at = {}
    answers = Counter()

    def send(item, ports_now):
        key, sequence, msg_id, body = item
        if args.sigterm:
            return send_retrying(item)
        # While the only bridge is down, sends fail at once: no need to pace them.
        if not (killed.is_set() and args.instances == 1 and bridges[0].poll() is not None):
            pace.wait()
        port = random.choice(ports_now)
        status = poster.post(port, "/v1/webhooks/orders", body, sign(body, msg_id, int(time.time())))
        if 200 <= status < 300:
            with lock:
                acknowledged[(key, sequence)] = True
                if not killed.is_set() and len(acknowledged) >= len(webhooks) // 3:
                    killed.set()
                    os.kill(bridges[0].pid, signal.SIGKILL)
        return status

    def send_retrying(item):
        """--sigterm: one webhook, retried every 200 ms (on another bridge when there are two)
        until acknowledged, as a sender does after a 503 or a refused connection."""
        key, sequence, msg_id, body = item
        pace.wait()
        for attempt in range(300):
            port = random.choice(ports)
            status, headers, answer = poster.post_answer(port, "/v1/webhooks/orders", body, sign(body, msg_id, int(time.time())))
            answered_at = time.time()
            # A connection that failed while its bridge still ran and drained (not one refused
            # once it stopped listening, or a stale keep-alive one the restarted bridge never had).
            stopped = stopping.get(index_of(port))
            draining = stopped is not None and stopped.poll() is None
            with lock:
                if 200 <= status < 300:
                    acknowledged[(key, sequence)] = True
                    acknowledged_at.setdefault((key, sequence), time.time())
                    answers["2xx"] += 1
                    return status
                if status == 503 and b'"draining"' in answer:
                    answers["503 draining" + (" with Retry-After" if "Retry-After" in headers or "retry-after" in headers else " WITHOUT Retry-After")] += 1
                elif status == 0:
                    answers["no answer (" + ("while its bridge drained" if draining else "bridge stopped, starting or a stale connection") + ")"] += 1
                    if draining:
                        unanswered.append((index_of(port), answered_at))
                else:
                    answers[f"{status}"] += 1
            time.sleep(0.2)
        return status

    def index_of(port):
        return ports.index(port)

    stopping = {}  # index: the process being stopped
    drains = []
    unanswered = []
    exits = []

    def restarter():
        """--sigterm: stops and starts the bridges in turn while the webhooks come."""
        for restart in range(args.restarts):
            target = len(webhooks) * (restart + 1) // (args.restarts + 1)
            while len(acknowledged) < target:
                time.sleep(0.05)
            index = restart % args.instances
            with lock:
                stopping[index] = bridges[index]
            began = time.time()
            bridges[index].send_signal(signal.SIGTERM)
            try:
                code = bridges[index].wait(timeout=args.drain_timeout + 30)
            except subprocess.TimeoutExpired:
                bridges[index].kill()
                code = "killed after not exiting"
            drains.append((index, time.time() - began, code))
            exits.append((index, began, time.time()))
            start(index)
            with lock:
                stopping.pop(index, None)

    restarts = threading.Thread(target=restarter, daemon=True) if args.sigterm else None
    if restarts:
        restarts.start()

    started = time.time()
    if faults:
        faults.cycle()
    with ThreadPoolExecutor(args.threads) as pool:
        statuses = list(pool.map(lambda item: send(item, ports), webhooks))
    if args.sigterm:
        restarts.join()
        print(f"burst: {len(webhooks)} webhooks in {time.time() - started:.1f}s, {len(acknowledged)} acknowledged; "
              f"answers: {dict(answers)}")
        for index, took, code in drains:
            print(f"  SIGTERM to bridge {index}: exited {code} after {took:.2f}s (drain-timeout {args.drain_timeout:g}s)")
        # When did a draining bridge leave a request unanswered: during the drain, or as it
        # closed its connections at the end (a keep-alive connection the sender reused then)?
        before_exit = sorted(min((end - at for i, began, end in exits if i == index and began <= at <= end), default=-1)
                             for index, at in unanswered)
        if before_exit:
            print(f"  requests a draining bridge left unanswered: {len(before_exit)}, "
                  f"{sum(1 for d in before_exit if 0 <= d <= 0.25)} of them in the last 250 ms before its exit "
                  f"(its HTTP server closing at the drain's end); the earliest {max(before_exit):.2f}s before the exit")
    else:
        bridges[0].wait()
        print(f"burst: {len(webhooks)} webhooks in {time.time() - started:.1f}s, {len(acknowledged)} acknowledged, "
              f"bridge 0 killed with -9 after {len(webhooks) // 3}")
        start(0)
    # Memory of the restarted bridge while it takes the rest of the burst (and of the mock).
    sampler = RSSSampler(args.rss_every, {"bridge 0": lambda: bridges[0].pid, "mock": lambda: mock.pid})
    missing = [item for item in webhooks if (item[0], item[1]) not in acknowledged]
    duplicates = random.sample([item for item in webhooks if (item[0], item[1]) in acknowledged], min(500, len(acknowledged)))
    for attempt in range(5):
        with ThreadPoolExecutor(args.threads) as pool:
            list(pool.map(lambda item: send(item, ports), missing + duplicates))
        duplicates = []
        missing = [item for item in webhooks if (item[0], item[1]) not in acknowledged]
        if not missing:
            break
    print(f"re-sent what was not acknowledged; {len(acknowledged)} of {len(webhooks)} now acknowledged")
    sampler.stop()

    def wait_idle():
        deadline = time.time() + 300
        while time.time() < deadline:
            ready = json.loads(wait_http(f"http://127.0.0.1:{ports[0]}/readyz"))
            counts = ready.get("counts", ready)
            if counts.get("pendingEvents", counts.get("pending-events", 1)) == 0 and counts.get("outbox", 1) == 0:
                return
            time.sleep(1)
        raise SystemExit(f"the bridges did not become idle: {ready}")

    wait_idle()
    # Activities with a dead letter: its replay sends the current state again, with a fresh
    # timestamp, after the pushes that went on without it.
    replayed = set()
    if faults:
        faults.stop()
        stats = json.loads(wait_http(f"http://127.0.0.1:{inspect_port}/stats"))
        print(f"mock: {stats['requests']} requests {stats['statuses']}, {stats['faults-injected']} faults injected, "
              f"{stats['goaways-sent']} GOAWAYs; windows applied: {dict(Counter(faults.applied))}")
        dead = dead_letters(args.liveline, f"{work}/bridge-{ports[0]}.yaml", env, "list")
        replayed.update(re.findall(r"^#\d+\s+(\S+)", dead, re.MULTILINE))
        reasons = Counter(line.strip() for line in dead.splitlines() if line.startswith("    "))
        print(f"dead letters after the faults: {len(replayed)} activities; reasons: {dict(reasons) or 'none'}")
        if replayed:
            replies = dead_letters(args.liveline, f"{work}/bridge-{ports[0]}.yaml", env, "replay")
            print(f"replayed: {sum('queued' in line for line in replies.splitlines())} queued with the current state")
            wait_idle()

    def shown_at(token, minutes_left):
        """When the mock accepted the push showing `minutes_left` for `token` (seconds), or None."""
        history = json.loads(wait_http(f"http://127.0.0.1:{inspect_port}/activities/{token}/pushes"))
        for push in history:
            if push["status"] == 200 and json.loads(push["payload"])["aps"]["content-state"]["minutesLeft"] == minutes_left:
                return push["time"] / 1000
        return None

    def held_case():
        """--sigterm --held N: a push the engine holds while its bridge is stopped goes out on time."""
        keys = list(tokens)[:args.held]
        first, second = args.events + 1, args.events + 2
        for sequence in (first, second):
            items = [(key, sequence, f"msg_{key}_{sequence}", json.dumps({"type": "order.eta", "data": {
                "order_id": key, "sequence": sequence, "minutes_left": 1000 - sequence}}).encode()) for key in keys]
            with ThreadPoolExecutor(args.threads) as pool:
                statuses = list(pool.map(lambda item: poster.post(ports[0], "/v1/webhooks/orders", item[3],
                                                                  sign(item[3], item[2], int(time.time()))), items))
            for (key, sequence, _, _), status in zip(items, statuses):
                if 200 <= status < 300:
                    acknowledged[(key, sequence)] = True
        time.sleep(0.1)
        began = time.time()
        bridges[0].send_signal(signal.SIGTERM)
        code = bridges[0].wait(timeout=args.drain_timeout + 30)
        start(0)
        ready = time.time()
        deadline = ready + 60
        arrivals = {}
        while len(arrivals) < len(keys) and time.time() < deadline:
            with ThreadPoolExecutor(16) as pool:
                for key, at in zip(keys, pool.map(lambda k: shown_at(tokens[k], 1000 - second), keys)):
                    if at is not None:
                        arrivals[key] = at
            time.sleep(0.2)
        # When each first push reached the mock (a first coalesced with its second has none).
        pushed = {}
        with ThreadPoolExecutor(16) as pool:
            for key, at in zip(keys, pool.map(lambda k: shown_at(tokens[k], 1000 - first), keys)):
                if at is not None:
                    pushed[key] = at
        held = sum(1 for key in keys if key in pushed and key in arrivals and arrivals[key] >= pushed[key] + 0.9)
        late = []
        for key in keys:
            due = max(pushed.get(key, began) + 1, ready)
            at = arrivals.get(key)
            if at is None or at > due + 2:
                late.append((key, None if at is None else at - due))
        print(f"held pushes: {len(keys)} activities ({held} second pushes held for min-interval), SIGTERM 0.1 s after "
              f"their second event (exited {code} after "
              f"{ready - began:.2f}s with the restart); {len(arrivals)} held pushes out, at most "
              f"{max((arrivals[k] - max(pushed.get(k, began) + 1, ready) for k in arrivals), default=0):.2f}s after "
              f"their due time or the restart")
        return [f"{len(late)} held pushes not out within 2 s of their due time after the restart, e.g. "
                f"{late[0][0]}: {'never' if late[0][1] is None else f'{late[0][1]:.1f}s late'}"] if late else []

    held_problems = held_case() if args.sigterm and args.held else []

    delays = []

    def check():
        problems, pushes_total, repeats = [], 0, 0
        delays.clear()
        for key, token in tokens.items():
            history = json.loads(wait_http(f"http://127.0.0.1:{inspect_port}/activities/{token}/pushes"))
            accepted, seen, shown_at = [], set(), []
            for push in history:
                if push["status"] != 200:
                    continue
                outcomes = {d.get("outcome") for d in push.get("deliveries", [])}
                if push["payload"] in seen and outcomes == {"dropped-old"}:
                    repeats += 1
                    continue
                seen.add(push["payload"])
                accepted.append(json.loads(push["payload"])["aps"])
                shown_at.append((1000 - accepted[-1]["content-state"]["minutesLeft"], push["time"] / 1000))
            for (k, sequence), at in acknowledged_at.items():
                if k == key:
                    reached = min((t for shown, t in shown_at if shown >= sequence), default=None)
                    delays.append(reached - at if reached is not None else float("inf"))
            pushes_total += len(accepted)
            if key in replayed and len(accepted) >= 2 and accepted[-1]["content-state"] == accepted[-2]["content-state"]:
                accepted.pop(-2)  # the replay repeats the current state, newer: the device shows it once
            values = [aps["content-state"]["minutesLeft"] for aps in accepted]
            stamps = [aps["timestamp"] for aps in accepted]
            highest = max((s for (k, s) in acknowledged if k == key), default=None)
            if highest is not None and (not values or values[-1] != 1000 - highest):
                problems.append(f"{key}: last shows {values[-1:] or 'nothing'}, expected {1000 - highest} (sequence {highest})")
            if any(b >= a for a, b in zip(values, values[1:])):
                problems.append(f"{key}: minutesLeft not strictly falling: {values}")
            if any(b <= a for a, b in zip(stamps, stamps[1:])):
                problems.append(f"{key}: timestamps not strictly rising: {stamps}")
        return problems, pushes_total, repeats

    # The store is idle, but a push the policy holds back (min-interval 15s in delivery.yaml)
    # waits in the activity's engine state for its deadline: give those time to go.
    deadline = time.time() + 90
    while True:
        problems, pushes_total, repeats = check()
        if not problems or time.time() > deadline:
            break
        time.sleep(3)
    for process in list(bridges.values()) + [mock]:
        process.send_signal(signal.SIGTERM)
    for process in list(bridges.values()) + [mock]:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    problems += held_problems
    if args.sigterm:
        if repeats:
            problems.append(f"{repeats} pushes were sent twice (a stop abandoned pushes in flight)")
        for index, took, code in drains:
            if code != 0 or took > args.drain_timeout + 1:
                problems.append(f"a SIGTERM to bridge {index} took {took:.1f}s and exited {code}")
        stalls = [d for d in delays if d > args.drain_timeout]
        if stalls:
            problems.append(f"{len(stalls)} acknowledged webhooks reached the mock later than the drain deadline "
                            f"({args.drain_timeout:g}s) after their 2xx; the longest after {max(stalls):.1f}s")
        if any("WITHOUT" in answer for answer in answers):
            problems.append(f"a draining bridge answered 503 without Retry-After: {dict(answers)}")
        ordered = sorted(delays)
        if ordered:
            print(f"from a webhook's 2xx to its state at the mock: p50 {ordered[len(ordered) // 2]:.2f}s, "
                  f"p99 {ordered[int(len(ordered) * 0.99)]:.2f}s, max {ordered[-1]:.2f}s over {len(ordered)} webhooks")
    print(f"checked {len(tokens)} activities, {pushes_total} pushes shown at the mock "
          f"({repeats} sent again {'after a stop' if args.sigterm else 'after the kill'} and dropped by the device as not newer): "
          f"{'no problems' if not problems else str(len(problems)) + ' problems'} (logs: {work}/processes.log)")
    for problem in problems[:20]:
        print("  " + problem)
    sampler.report()
    sys.exit(1 if problems else 0)


class RSSSampler:
    """Samples the resident memory (VmRSS) of some processes every `every` seconds in a thread."""

    def __init__(self, every, pids):
        self.every, self.pids, self.samples = every, pids, []
        self.done = threading.Event()
        self.started = time.time()
        if every:
            threading.Thread(target=self.run, daemon=True).start()

    def rss_mb(self, pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024
        except (OSError, StopIteration):
            return None

    def run(self):
        while not self.done.wait(self.every):
            self.samples.append((time.time() - self.started, {name: self.rss_mb(pid()) for name, pid in self.pids.items()}))

    def stop(self):
        self.done.set()

    def report(self):
        if not self.samples:
            return
        print("resident memory (MB) while the restarted bridge took the rest of the burst:")
        for elapsed, values in self.samples:
            print(f"  t={elapsed:6.0f}s  " + "  ".join(f"{name} {value:.1f}" if value is not None else f"{name} -" for name, value in values.items()))


class Faults:
    """The mock's fault plan, set through its inspection API (POST /faults replaces it)."""

    BASE = {"errors": [{"status": 500, "reason": "InternalServerError", "rate": 0.025},
                       {"status": 503, "reason": "ServiceUnavailable", "rate": 0.025}],
            "goaway-every": 2000, "seed": 11}

    def __init__(self, inspect_port):
        self.url = f"http://127.0.0.1:{inspect_port}/faults"
        self.done = threading.Event()
        self.applied = []

    def post(self, extra):
        body = json.dumps({**self.BASE, **extra} if extra is not None else {"errors": []}).encode()
        request = urllib.request.Request(self.url, method="POST", data=body, headers={"content-type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()

    def cycle(self, gap=4):
        """Latency, a 429 burst and a shutdown window in turn, `gap` seconds apart, until stopped."""
        steps = [("200 ms latency", {"latency": "200ms"}, 5), ("429 burst", {"too-many-requests-after": 0}, 3),
                 ("shutdown window", {"shutdown-windows": [{"after": "0s", "for": "5s"}]}, 5)]

        def run():
            while True:
                for name, extra, hold in steps:
                    if self.done.wait(gap):
                        return
                    self.post(extra)
                    self.applied.append(name)
                    self.done.wait(hold)
                    self.post({})

        threading.Thread(target=run, daemon=True).start()

    def stop(self):
        self.done.set()
        self.post(None)


class Pace:
    """Spaces calls `1/rate` seconds apart across threads (no pacing at rate 0)."""

    def __init__(self, rate):
        self.interval = 1 / rate if rate else 0
        self.next = time.monotonic()
        self.lock = threading.Lock()

    def wait(self):
        if not self.interval:
            return
        with self.lock:
            now = time.monotonic()
            at = max(self.next, now)
            self.next = at + self.interval
        if at > now:
            time.sleep(at - now)


def dead_letters(liveline, config, env, action):
    out = subprocess.run([liveline, "bridge", "dead-letters", action, "--config", config, "--limit", "100000"],
                         capture_output=True, text=True, env=env)
    return out.stdout + out.stderr


if __name__ == "__main__":
    main()
