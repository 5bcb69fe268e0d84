#!/usr/bin/env python3
"""Crash test of a fan-out: a match's events reach every follower of one key, in order, across a
`kill -9` of a bridge in the middle of a fan-out.

It runs the real programs: `liveline mock-apns` in its own process (its per-device history
survives the bridges; over TLS, with a small latency on every answer so a fan-out lasts long
enough to be killed in the middle), and one or two `liveline bridge serve` on one store. One
key, `match-1`, is registered as an audience (`"audience": true`) on a webhook source that drives
Scenarios/football.yaml (its min-interval cut to 1 s, so the test does not wait out the
policy), and FOLLOWERS followers (update tokens) are imported by NDJSON. Then a match is
played through signed webhooks: kick-off, a goal, and once the mock has answered a third of
that goal's fan-out, `kill -9` of bridge 0; with one instance (SQLite) it is started again, with
two (PostgreSQL) the other one carries on alone and the dead one is started again later. The
rest of the match (a card, two more goals sent back to back, so they coalesce mid-fan-out, and
full time) is sent to a bridge that is up. When every device shows the final state, it checks,
from the mock's own history of every follower's token:

- the device shows the story's final state (the bridge's content-state of the key: 2–1,
  full-time);
- no older state after a newer one: the `aps.timestamp`s the mock accepted never go back;
- repeats (a push with a timestamp the device already has: a range that was in flight when its
  bridge was killed is sent again with the same payload, and the device drops it) are counted
  and reported, not taken as shown.

With --starters N, N more followers have only a push-to-start token, and the match begins with
a `pre_match` webhook that starts the activity (a start fan-out to them); --kill-at 0 kills the
bridge a third of the way through that start fan-out. A start is delivered once: a start range
the killed bridge may have sent is not sent again but marked in doubt. It checks, from the mock:

- no phone shows two Live Activities: the mock's `duplicate-starts` is 0 and no push-to-start
  token started a second activity;
- every starter has exactly one activity, or is in doubt (counted in the key's followers and
  printed, with how many of them the killed bridge had in fact reached).

Exits 1 on any violation.

    scripts/soak/audience-crash-test.py                                  # SQLite, one instance
    scripts/soak/audience-crash-test.py --postgres --instances 2         # a throwaway PostgreSQL
    scripts/soak/audience-crash-test.py --store postgres://… --instances 2
    scripts/soak/audience-crash-test.py --starters 3000 --kill-at 0 [--postgres --instances 2]
    [--followers 10000] [--kill-at 2] [--liveline .build/release/liveline] [--latency 20ms]
"""
import argparse, base64, hashlib, hmac, json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
API_KEY = "crash-test-key"
KEY = "match-1"

# The match: (webhook type, data). Sequence numbers order them (order-key: /data/sequence).
MATCH = [
    ("kick_off", {"minute": 0}),
    ("goal", {"minute": 23, "home": 1, "away": 0, "scorer": "Okafor"}),
    ("card", {"minute": 38, "player": "Brandt"}),
    ("goal", {"minute": 41, "home": 1, "away": 1, "scorer": "Lindqvist"}),
    ("goal", {"minute": 77, "home": 2, "away": 1, "scorer": "Okafor"}),
    ("full_time", {"minute": 90, "home": 2, "away": 1}),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


def wait_http(url, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            return get(url, timeout=2)
        except Exception:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer within {timeout}s")


def request(method, url, body=None, headers=None, timeout=30):
    req = urllib.request.Request(url, method=method, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except Exception:
        return 0, b""


def webhook(port, sequence, kind, data):
    body = json.dumps({"type": kind, "data": dict(data, match_id=KEY, sequence=sequence)}).encode()
    msg_id, ts = f"msg_{KEY}_{sequence}", str(int(time.time()))
    key = base64.b64decode(SECRET[len("whsec_"):])
    sig = base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()).decode()
    return request("POST", f"http://127.0.0.1:{port}/v1/webhooks/match", body, {
        "content-type": "application/json", "webhook-id": msg_id, "webhook-timestamp": ts, "webhook-signature": "v1," + sig})[0]


class ThrowawayPostgres:
    """initdb + pg_ctl in a temporary directory, as the postgres user (initdb refuses root)."""

    def __init__(self, work):
        bins = sorted(d for d in (f"/usr/lib/postgresql/{v}/bin" for v in os.listdir("/usr/lib/postgresql"))
                      if os.path.exists(f"{d}/initdb")) if os.path.isdir("/usr/lib/postgresql") else []
        self.bin = bins[-1] if bins else os.path.dirname(shutil.which("initdb") or "")
        # Its own directory: the postgres user cannot enter the test's (mode 0700, root's).
        self.dir, self.port = tempfile.mkdtemp(prefix="liveline-audience-pg-"), free_port()
        with open(f"{self.dir}/password", "w") as f:
            f.write("liveline\n")
        self.user = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if self.user:
            subprocess.run(["chown", "-R", "postgres", self.dir], check=True)
        subprocess.run(self.user + [f"{self.bin}/initdb", "-D", f"{self.dir}/data", "-U", "liveline", f"--pwfile={self.dir}/password",
                                    "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(self.user + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-l", f"{self.dir}/server.log", "-w", "-t", "60",
                                    "-o", f"-p {self.port} -h 127.0.0.1 -k {self.dir} -c max_connections=300", "start"],
                       check=True, stdout=subprocess.DEVNULL)
        self.url = f"postgres://liveline:liveline@127.0.0.1:{self.port}/postgres"

    def stop(self):
        subprocess.run(self.user + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-m", "immediate", "-w", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.dir, ignore_errors=True)


def check_starters(starters, view_of, metrics):
    """No phone with two Live Activities; each starter started once, or in doubt. A range the
    killed bridge held is marked in doubt once its claim's lease (5 s) is over: waits for that."""
    problems = []
    deadline = time.time() + 30
    while True:
        stats = json.loads(get(f"http://127.0.0.1:{INSPECT_PORT[0]}/stats"))
        activities, after = [], None
        while True:
            page = json.loads(get(f"http://127.0.0.1:{INSPECT_PORT[0]}/activities?limit=10000"
                                  + (f"&after={after}" if after else "")))
            activities += [a["id"] for a in page["activities"] if a["id"].startswith("start:")]
            after = page.get("next")
            if not after:
                break
        per_token = Counter(a.split(":")[1] for a in activities)
        twice = [t for t in starters if per_token.get(t[:12], 0) >= 2]
        never = [t for t in starters if per_token.get(t[:12], 0) == 0]
        view = view_of()
        in_doubt = (view.get("followers") or {}).get("in-doubt", 0)
        if len(never) <= in_doubt or time.time() > deadline:
            break
        time.sleep(0.5)
    metric = sum(float(line.split()[-1]) for line in metrics.splitlines()
                 if line.startswith('liveline_followers{state="in_doubt"}'))
    print(f"followers: {view.get('followers')}")
    print(f"starters: {len(starters)}; devices with two activities: {len(twice)} (mock duplicate-starts "
          f"{stats.get('duplicate-starts')}); in doubt: {in_doubt} (metric {metric:g}, set every 30 s), of which the "
          f"killed bridge had reached {in_doubt - min(in_doubt, len(never))}; never started: {len(never)}")
    if twice or stats.get("duplicate-starts", 0):
        problems.append(f"{len(twice)} devices show two Live Activities for one match (duplicate-starts "
                        f"{stats.get('duplicate-starts')}), e.g. …{twice[0][-8:] if twice else '?'}")
    if len(never) > in_doubt:
        problems.append(f"{len(never) - in_doubt} starters were never started and are not in doubt")
    return problems


INSPECT_PORT = []  # the mock's inspection port, once started


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--liveline", default=os.path.join(ROOT, ".build/debug/liveline"))
    parser.add_argument("--store", default=None, help="postgres://… (default: a new SQLite file)")
    parser.add_argument("--postgres", action="store_true", help="start a throwaway PostgreSQL (initdb, pg_ctl) for the store")
    parser.add_argument("--instances", type=int, default=1)
    parser.add_argument("--followers", type=int, default=10000)
    parser.add_argument("--kill-at", type=int, default=2, help="the event (1-6) whose fan-out is killed a third of the way; "
                        "6, full time: nothing newer supersedes the killed ranges, so they are sent again after the lease; "
                        "0 (with --starters): the start fan-out to the push-to-start followers")
    parser.add_argument("--starters", type=int, default=0, help="followers with only a push-to-start token, started by a "
                        "pre_match webhook before kick-off")
    parser.add_argument("--latency", default="20ms", help="the mock's delay on every answer, so a fan-out lasts long enough to kill")
    args = parser.parse_args()
    if args.kill_at == 0 and not args.starters:
        raise SystemExit("--kill-at 0 kills the start fan-out: give --starters")
    if args.followers + args.starters > 10000:
        raise SystemExit("the mock keeps a push history for 10,000 tokens; --followers and --starters must be at most that")
    match = ([("pre_match", {"minute": 0})] if args.starters else []) + MATCH
    KILL_AT = args.kill_at - (0 if args.starters else 1)

    work = tempfile.mkdtemp(prefix="liveline-audience-crash-")
    pg = ThrowawayPostgres(work) if args.postgres else None
    store = pg.url if pg else (args.store or f"sqlite:{work}/bridge.sqlite")
    logs = open(f"{work}/processes.log", "w")
    mock_port, inspect_port = free_port(), free_port()
    INSPECT_PORT.append(inspect_port)
    ports = [free_port() for _ in range(args.instances)]
    ca = f"{work}/mock.pem"
    mock = subprocess.Popen([args.liveline, "mock-apns", "--listen", f"127.0.0.1:{mock_port}", "--write-ca", ca,
                             "--inspect", f"127.0.0.1:{inspect_port}", "--history", "64", "--accept-any-token",
                             "--latency", args.latency], stdout=logs, stderr=logs)
    wait_http(f"http://127.0.0.1:{inspect_port}/stats")

    scenario = f"{work}/football.yaml"
    with open(f"{ROOT}/Scenarios/football.yaml") as source, open(scenario, "w") as copy:
        story = source.read().replace("min-interval: 15s", "min-interval: 1s")
        if args.starters:
            # The beat push-to-start sends: the activity starts on the starters' phones before kick-off.
            story = story.replace("\n    beats:\n", """
    beats:
      - id: pre-match
        at: 0
        start: { input-push-token: true }
        alert: { title: "Northbridge v Harbour City starts soon", body: "Follow it live" }
""", 1)
        copy.write(story)
    env = dict(os.environ, CRASH_TEST_SECRET=SECRET)
    bridges = {}

    # Push-to-start needs the story's start beat, which only --starters adds.
    pre_match = "\n      pre_match:\n        start: true" if args.starters else ""

    def write_config(port):
        path = f"{work}/bridge-{port}.yaml"
        with open(path, "w") as f:
            f.write(f"""liveline-bridge: 1
listen: 127.0.0.1:{port}
store: {store}
api-keys: [sha256:{hashlib.sha256(API_KEY.encode()).hexdigest()}]
sources:
  match:
    verify: standard-webhooks
    secrets: [env:CRASH_TEST_SECRET]
    event-id: header:webhook-id
    event-type: /type
    activity-key: /data/match_id
    order-key: /data/sequence
    order: sequence
    scenario: {scenario}
    events:{pre_match}
      kick_off:
        set: {{ phase: first-half, minute: /data/minute, lastEvent: "Kick-off" }}
        priority: high
      goal:
        set: {{ minute: /data/minute, homeScore: /data/home, awayScore: /data/away, lastEvent: "GOAL! {{{{ /data/scorer }}}}" }}
        priority: high
      card:
        set: {{ minute: /data/minute, lastEvent: "Yellow card: {{{{ /data/player }}}}" }}
      full_time:
        set: {{ minute: /data/minute, homeScore: /data/home, awayScore: /data/away, phase: full-time, lastEvent: "Full time" }}
        priority: high
""")
        return path

    def start(index):
        port = ports[index]
        bridges[index] = subprocess.Popen(
            [args.liveline, "bridge", "serve", "--config", write_config(port), "--apns-url", f"https://127.0.0.1:{mock_port}",
             "--ca-file", ca, "--instance", f"crash-{index}-{time.time_ns()}", "--lease", "5s", "--log-level", "warning"],
            stdout=logs, stderr=logs, env=env)
        wait_http(f"http://127.0.0.1:{port}/healthz")

    def up():
        return next(ports[i] for i in sorted(bridges) if bridges[i].poll() is None)

    def answered():
        return json.loads(get(f"http://127.0.0.1:{inspect_port}/stats"))["device-pushes"]

    problems = []
    try:
        for index in range(args.instances):
            start(index)
        status, body = request("PUT", f"http://127.0.0.1:{ports[0]}/v1/activities/{KEY}",
                               json.dumps({"source": "match", "audience": True}).encode(),
                               {"authorization": f"Bearer {API_KEY}", "content-type": "application/json"})
        assert status in (200, 201), (status, body)
        def import_followers(prefix, field, tokens):
            """The NDJSON import, 10,000 a request: device PREFIX-n with FIELD tokens[n]."""
            for first in range(0, len(tokens), 10000):
                lines = "".join(json.dumps({"device": f"{prefix}-{n}", field: tokens[n]}) + "\n"
                                for n in range(first, min(first + 10000, len(tokens))))
                # (`liveline bridge followers import FILE` does the same from a file, with the bridge stopped.)
                status, body = request("POST", f"http://127.0.0.1:{ports[0]}/v1/activities/{KEY}/followers",
                                       lines.encode(), {"authorization": f"Bearer {API_KEY}",
                                                        "content-type": "application/x-ndjson"})
                assert status == 200, (status, body)

        tokens = [hashlib.sha256(f"crash-fan-{n}".encode()).hexdigest() for n in range(args.followers)]
        import_followers("fan", "update-token", tokens)
        starters = [hashlib.sha256(f"crash-start-{n}".encode()).hexdigest() for n in range(args.starters)]
        import_followers("starter", "push-to-start-token", starters)
        print(f"{args.followers} followers of {KEY} (and {args.starters} with only a push-to-start token) "
              f"on {store.split('@')[-1]}, {args.instances} instance(s)")

        killed_at = None
        for index, (kind, data) in enumerate(match):
            sequence = index + 1
            before = answered()
            while (status := webhook(up(), sequence, kind, data)) not in (200, 202):
                time.sleep(0.2)
            if index == KILL_AT:
                deadline = time.time() + 60
                audience = args.starters if kind == "pre_match" else args.followers
                while answered() - before < audience // 3 and time.time() < deadline:
                    time.sleep(0.002)
                bridges[0].send_signal(signal.SIGKILL)
                bridges[0].wait()
                killed_at = answered() - before
                print(f"kill -9 of bridge 0 after {killed_at} of {audience} answers of event {sequence} ({kind})")
                if args.instances == 1:
                    start(0)
            elif index < KILL_AT:
                # Let kick-off reach everyone first, so the goal's fan-out is the one killed.
                deadline = time.time() + 120
                audience = args.starters if kind == "pre_match" else args.followers
                while answered() - before < audience and time.time() < deadline:
                    time.sleep(0.05)
        if args.instances > 1:
            time.sleep(2)
            start(0)  # the dead instance comes back while the other finishes

        # The story's final state, as the bridge holds it once it has applied every event it
        # acknowledged (read at once, it may still be a step behind the last webhook).
        deadline = time.time() + 60
        while True:
            final = json.loads(request("GET", f"http://127.0.0.1:{up()}/v1/activities/{KEY}",
                                       headers={"authorization": f"Bearer {API_KEY}"})[1])
            if final.get("pending-events") == 0 or time.time() > deadline:
                break
            time.sleep(0.1)
        expected = final.get("content-state") or final.get("contentState")
        if not expected or expected.get("phase") != "full-time" or (expected.get("homeScore"), expected.get("awayScore")) != (2, 1):
            problems.append(f"the bridge's final state is not full time 2–1: {expected}")

        def shown():
            states, after = {}, None
            while True:
                page = json.loads(get(f"http://127.0.0.1:{inspect_port}/activities?limit=10000" + (f"&after={after}" if after else "")))
                for activity in page["activities"]:
                    states[activity.get("update-token") or activity["id"]] = activity.get("content-state")
                after = page.get("next")
                if not after:
                    return states

        started = time.time()
        deadline = started + 180
        while True:
            states = shown()
            behind = [t for t in tokens if states.get(t) != expected]
            if not behind or time.time() > deadline:
                break
            time.sleep(1)
        print(f"every device at the final state {time.time() - started:.1f}s after the last webhook was sent"
              if not behind else f"{len(behind)} devices not at the final state after 180 s")
        time.sleep(2)  # anything still on its way arrives before the histories are read

        def history(token):
            return token, json.loads(get(f"http://127.0.0.1:{inspect_port}/activities/{token}/pushes"))

        repeats, older, pushes, outcomes, sample = 0, [], 0, Counter(), None
        with ThreadPoolExecutor(16) as pool:
            for token, records in pool.map(history, tokens):
                newest = None
                for record in records:
                    if record["status"] != 200:
                        continue
                    pushes += 1
                    for delivery in record.get("deliveries", []):
                        outcomes[delivery.get("outcome")] += 1
                    stamp = record.get("timestamp")
                    if stamp is None and record.get("payload"):
                        stamp = json.loads(record["payload"])["aps"]["timestamp"]
                    if newest is not None and stamp == newest:
                        repeats += 1
                        sample = sample or (token, records)
                    elif newest is not None and stamp < newest:
                        older.append(token)
                    newest = stamp if newest is None else max(newest, stamp)
        states = shown()
        wrong = [t for t in tokens if states.get(t) != expected]
        if wrong:
            problems.append(f"{len(wrong)} devices do not show the final state, e.g. {wrong[0][-8:]}: {states.get(wrong[0])}")
        if older:
            problems.append(f"{len(older)} devices got an older state after a newer one, e.g. …{older[0][-8:]}")
        killed_audience = args.starters if KILL_AT == 0 and args.starters else args.followers
        if killed_at is None or killed_at >= killed_audience:
            problems.append(f"the kill did not land in the middle of a fan-out ({killed_at} of {killed_audience} answered)")
        view = json.loads(request("GET", f"http://127.0.0.1:{up()}/v1/activities/{KEY}",
                                  headers={"authorization": f"Bearer {API_KEY}"})[1])
        metrics = "".join(get(f"http://127.0.0.1:{ports[i]}/metrics").decode() for i in bridges if bridges[i].poll() is None)
        duplicates = sum(float(line.split()[-1]) for line in metrics.splitlines() if line.startswith("liveline_fanout_duplicates_total"))
        print(f"checked {len(tokens)} devices: {pushes} pushes accepted by the mock, device outcomes {dict(outcomes)}; "
              f"{repeats} repeats with a timestamp the device had (dropped by it; the bridge counted "
              f"{duplicates:g} resent after the kill), {len(older)} older after newer")
        if starters:
            problems += check_starters(starters, lambda: json.loads(request(
                "GET", f"http://127.0.0.1:{up()}/v1/activities/{KEY}", headers={"authorization": f"Bearer {API_KEY}"})[1]),
                metrics)
        else:
            print(f"followers: {view.get('followers')}")
        if sample:
            print(f"a device with a repeat, …{sample[0][-8:]}: " + "; ".join(
                f"{r['time'] % 100000} ms {r['status']} ts={r.get('timestamp')} {[d.get('outcome') for d in r.get('deliveries', [])]}"
                for r in sample[1]))
    finally:
        for process in list(bridges.values()) + [mock]:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in list(bridges.values()) + [mock]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        if pg:
            pg.stop()
    print("no problems" if not problems else f"{len(problems)} problems (logs: {work}/processes.log)")
    for problem in problems:
        print("  " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
