#!/usr/bin/env python3
"""Fault soak: many activities in real time against a mock APNs that misbehaves on purpose.

    scripts/soak/soak.sh                      # 10,000 football matches, about 10 minutes
    ACTIVITIES=1000 SPEED=120 scripts/soak/soak.sh   # a two-minute smoke run

`liveline load` plays ACTIVITIES copies of Scenarios/football.yaml on the real clock at SPEED
(15: a 121-minute match takes about 8 minutes), all started within RAMP, against
`liveline mock-apns --h2c` in its own process. Throughout, 2.5% of pushes get 500
InternalServerError and 2.5% 503 ServiceUnavailable, and every connection is closed with GOAWAY
after GOAWAY_EVERY requests. On a schedule, through the mock's inspection API (POST /faults),
the script adds for a while:

  - a shutdown window: 503 Shutdown and GOAWAY on every request, for 20 s (three times);
  - a 429 burst: every push answered 429 TooManyRequests, for 15 s (twice);
  - a latency spike: every answer 200 ms late, for 15 s.

At the end it checks, and exits 1 when one fails:

  1. every push is accounted for: delivered, superseded by a newer one of its activity, or given
     up after retries with its reason (the load report's delivery counts); none lost;
  2. per-activity order held: the mock's simulated devices saw no push older than one they had
     already shown (`dropped-old` is 0), and each token's history at the mock has non-decreasing
     `aps.timestamp`s among the pushes it accepted (the history keeps each one's timestamp
     after it drops the body; a history without them fails the check rather than passing it);
  3. resident memory is flat once every bounded structure is at its high-water mark (each
     token's history of HISTORY pushes, default 8, full; the first two shutdown windows over, as
     each tears down and reopens every connection, tens of thousands of times): the mock's and
     the load tester's RSS then and at the end of the steady part differ by less than FLAT
     (default 10%), through a third shutdown window and another burst. A leak grows with every
     window; a high-water mark does not.

Prints the fault schedule as applied, RSS samples every 10 s and a summary line per check.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIVELINE = os.environ.get("LIVELINE", os.path.join(ROOT, ".build/release/liveline"))
ACTIVITIES = int(os.environ.get("ACTIVITIES", "10000"))
SPEED = float(os.environ.get("SPEED", "15"))
RAMP = os.environ.get("RAMP", "60s")
GOAWAY_EVERY = int(os.environ.get("GOAWAY_EVERY", "20000"))
FLAT = float(os.environ.get("FLAT", "0.10"))
HISTORY = int(os.environ.get("HISTORY", "8"))
MOCK_PORT = int(os.environ.get("MOCK_PORT", "18397"))
INSPECT_PORT = int(os.environ.get("INSPECT_PORT", "18398"))
SCENARIO = os.path.join(ROOT, "Scenarios/football.yaml")

BASE = {
    "errors": [
        {"status": 500, "reason": "InternalServerError", "rate": 0.025},
        {"status": 503, "reason": "ServiceUnavailable", "rate": 0.025},
    ],
    "goaway-every": GOAWAY_EVERY,
    "seed": 7,
}


def http(method, path, body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{INSPECT_PORT}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def story_seconds():
    """The match's length on the wall clock at SPEED, from its plan."""
    out = subprocess.run([LIVELINE, "plan", SCENARIO, "--format", "jsonl"], capture_output=True, text=True, check=True).stdout
    offsets = [json.loads(line).get("offset", 0) for line in out.splitlines() if line.strip()]
    return max(offsets) / SPEED if offsets else 0


def main():
    for tool in (LIVELINE,):
        if not os.access(tool, os.X_OK):
            sys.exit(f"soak: {tool} not found; build it: swift build -c release --product liveline")
    work = tempfile.mkdtemp(prefix="liveline-soak.")
    mock = subprocess.Popen([LIVELINE, "mock-apns", "--h2c", "--accept-any-token", "--listen", f"127.0.0.1:{MOCK_PORT}",
                             "--inspect", f"127.0.0.1:{INSPECT_PORT}", "--scenario", SCENARIO, "--history", str(HISTORY)],
                            stdout=open(os.path.join(work, "mock.log"), "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                http("GET", "/stats")
                break
            except OSError:
                time.sleep(0.1)
        http("POST", "/faults", BASE)
        result = os.path.join(work, "load.json")
        load = subprocess.Popen([LIVELINE, "load", SCENARIO, "--activities", str(ACTIVITIES), "--ramp", RAMP,
                                 "--clock", "real", "--speed", str(SPEED), "--target", f"http://127.0.0.1:{MOCK_PORT}",
                                 "--quiet", "--json", result],
                                stdout=open(os.path.join(work, "load.log"), "w"), stderr=subprocess.STDOUT)
        started = time.monotonic()
        ramp_s = float(RAMP.rstrip("s")) if RAMP.endswith("s") and not RAMP.endswith("ms") else 60
        length = story_seconds()
        print(f"soak: {ACTIVITIES} activities, speed {SPEED}, ramp {RAMP}, each story {length:.0f} s; work dir {work}", flush=True)

        # The schedule, as fractions of the steady part (after the ramp, before the first ends).
        steady_from, steady_to = ramp_s + 15, ramp_s + length - 15
        span = steady_to - steady_from
        schedule = []
        steps = [
            ("shutdown window", {"shutdown-windows": [{"after": "0s", "for": "20s"}]}, 20),
            ("429 burst", {"too-many-requests-after": 0}, 15),
            ("shutdown window", {"shutdown-windows": [{"after": "0s", "for": "20s"}]}, 20),
            ("latency spike 200ms", {"latency": "200ms"}, 15),
            ("shutdown window", {"shutdown-windows": [{"after": "0s", "for": "20s"}]}, 20),
            ("429 burst", {"too-many-requests-after": 0}, 15),
        ]
        for k, (name, extra, hold) in enumerate(steps):
            at = steady_from + span * (k + 1) / (len(steps) + 1)
            schedule.append((at, name, extra, hold))

        samples = []
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                t = time.monotonic() - started
                samples.append((t, rss_kib(mock.pid), rss_kib(load.pid)))
                print(f"t={t:5.0f}s mock RSS {samples[-1][1]} kB, load RSS {samples[-1][2]} kB", flush=True)
                stop.wait(10)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        for at, name, extra, hold in schedule:
            while time.monotonic() - started < at and load.poll() is None:
                time.sleep(0.2)
            if load.poll() is not None:
                break
            http("POST", "/faults", {**BASE, **extra})
            print(f"t={time.monotonic() - started:5.0f}s fault on: {name} for {hold} s", flush=True)
            time.sleep(hold)
            http("POST", "/faults", BASE)
            print(f"t={time.monotonic() - started:5.0f}s fault off: {name}", flush=True)
        code = load.wait()
        stop.set()
        sampler.join()
        elapsed = time.monotonic() - started
        stats = http("GET", "/stats")
        failures = []

        with open(result) as f:
            report = json.load(f)
        d = report.get("delivery") or {}
        accounted = sum(d.get(k, 0) for k in ("delivered", "superseded", "rejected", "gave-up", "dropped-after-stop", "lost"))
        print(f"\nload: exit {code} after {elapsed:.0f} s; {report['pushes']['produced']} pushes produced, "
              f"{d.get('submitted', 0)} submitted: {d.get('delivered', 0)} delivered, {d.get('superseded', 0)} superseded, "
              f"{d.get('gave-up', 0)} gave up, {d.get('rejected', 0)} rejected, {d.get('dropped-after-stop', 0)} dropped after stop, "
              f"{d.get('lost', 0)} lost; {d.get('retries', 0)} retries {d.get('retry-failures', {})}; final reasons {d.get('reasons', {})}")
        print(f"mock: {stats['requests']} requests {stats['statuses']}, {stats['faults-injected']} faults injected, "
              f"{stats['goaways-sent']} GOAWAYs, device {stats['device']}")
        if d.get("submitted", 0) == 0 or accounted != d.get("submitted") or d.get("lost", 0) != 0:
            failures.append(f"pushes not all accounted for: submitted {d.get('submitted')}, accounted {accounted}, lost {d.get('lost')}")
        if d.get("gave-up", 0) and not d.get("reasons"):
            failures.append("pushes gave up without a reason")
        print(f"check 1, every push accounted for: {'ok' if not failures else failures[-1]}")

        dropped_old = stats["device"].get("dropped-old", 0)
        order_problems = []
        # The inspection API answers in pages; follow "next" to the end.
        listed = []
        cursor = None
        while True:
            page = http("GET", "/activities?limit=10000" + (f"&after={cursor}" if cursor else ""))
            if isinstance(page, list):
                listed += page
                break
            listed += page.get("activities", [])
            cursor = page.get("next")
            if not cursor:
                break
        checked = 0
        compared = 0
        missing_timestamps = 0
        for entry in listed:
            token = entry.get("token") or entry.get("id")
            if not token:
                continue
            history = http("GET", f"/activities/{token}/pushes")
            records = history if isinstance(history, list) else history.get("pushes", [])
            last = None
            for record in sorted(records, key=lambda r: r.get("time", 0)):
                if record.get("status") != 200:
                    continue
                # The mock keeps each accepted push's aps.timestamp even after it dropped the body.
                stamp = record.get("timestamp")
                if stamp is None:
                    missing_timestamps += 1
                    continue
                compared += 1
                if last is not None and stamp < last:
                    order_problems.append(f"{token[:12]}…: timestamp {stamp} after {last}")
                last = stamp
            checked += 1
        # A check that compared nothing proves nothing: every accepted push must carry its timestamp.
        vacuous = missing_timestamps > 0 or compared < checked
        if dropped_old or order_problems or vacuous:
            failures.append(f"order violated or unchecked: dropped-old {dropped_old}, history {order_problems[:5]}, "
                            f"{missing_timestamps} accepted pushes without a timestamp")
        print(f"check 2, per-activity order: dropped-old {dropped_old}; {checked} histories, {compared} accepted pushes "
              f"compared, {len(order_problems)} out of order: {'ok' if not (dropped_old or order_problems or vacuous) else 'FAILED'}")

        # Memory is compared once every bounded structure has reached its high-water mark: each
        # token's history ring (HISTORY pushes) is full a third of the way into its story, and two
        # shutdown windows (the largest retry backlogs and connection churn) are over. The third
        # window and the last burst then must not raise it.
        second_shutdown_end = schedule[2][0] + schedule[2][3]
        flat_from = max(ramp_s + length / 3, second_shutdown_end + 10)
        steady = [s for s in samples if flat_from <= s[0] <= steady_to and s[1] and s[2]]
        if len(steady) >= 2:
            first, last = steady[0], steady[-1]
            growth_mock = (last[1] - first[1]) / first[1]
            growth_load = (last[2] - first[2]) / first[2]
            flat = abs(growth_mock) < FLAT and abs(growth_load) < FLAT
            print(f"check 3, flat memory from t={first[0]:.0f}s to t={last[0]:.0f}s: mock {first[1]} → {last[1]} kB "
                  f"({growth_mock:+.1%}), load {first[2]} → {last[2]} kB ({growth_load:+.1%}), peak mock "
                  f"{max(s[1] for s in samples if s[1])} kB, load {max(s[2] for s in samples if s[2])} kB: {'ok' if flat else 'FAILED'}")
            if not flat:
                failures.append("memory not flat")
        else:
            failures.append("too few memory samples in the steady part")
        if failures:
            print("\nsoak: FAILED: " + "; ".join(failures))
            return 1
        print("\nsoak: passed")
        return 0
    finally:
        mock.terminate()
        mock.wait()


if __name__ == "__main__":
    sys.exit(main())
