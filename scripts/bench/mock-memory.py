#!/usr/bin/env python3
"""The mock APNs's memory per activity: what it holds for each token once a load has played.

    scripts/bench/mock-memory.py                          # 10,000 football matches, histories 32, 8 and 1
    scripts/bench/mock-memory.py --activities 50000 --history 8
    scripts/bench/mock-memory.py --history 1 --lean-history   # what liveline load's embedded mock keeps

For each history length it starts `liveline mock-apns --h2c` in its own process, reads its
resident memory (the baseline), plays `liveline load` of ACTIVITIES football matches (or --scenario) against it
on the virtual clock (every activity ends; its device record and history stay, as a device keeps
an ended activity on the Lock Screen), waits for the mock to settle and reads its RSS again.
Memory per activity is (settled - baseline) / ACTIVITIES; the mock's own count of tokens and
pushes (GET /stats) shows what it holds. LIVELINE names the binary (default: the release build).
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIVELINE = os.environ.get("LIVELINE", os.path.join(ROOT, ".build/release/liveline"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def get(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


def measure(activities, history, extra, scenario):
    port, inspect = free_port(), free_port()
    mock = subprocess.Popen(
        [LIVELINE, "mock-apns", "--h2c", "--accept-any-token", "--listen", f"127.0.0.1:{port}",
         "--inspect", f"127.0.0.1:{inspect}", "--history", str(history)] + extra,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                get(f"http://127.0.0.1:{inspect}/stats")
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(1)
        baseline = rss_kb(mock.pid)
        started = time.time()
        load = subprocess.run(
            ["/usr/bin/time", "-f", "load-peak-kb %M", LIVELINE, "load", scenario, "--activities", str(activities),
             "--target", f"http://127.0.0.1:{port}", "--clock", "virtual", "--quiet", "--json", "/dev/null"],
            capture_output=True, text=True)
        load_peak = next((int(line.split()[1]) for line in load.stderr.splitlines() if line.startswith("load-peak-kb")), 0)
        seconds = time.time() - started
        if load.returncode != 0:
            sys.exit(f"liveline load failed ({load.returncode}): {load.stderr.strip()[-400:]}")
        time.sleep(3)
        settled = rss_kb(mock.pid)
        stats = get(f"http://127.0.0.1:{inspect}/stats")
        pushes = stats.get("device-pushes", "?")
        per = (settled - baseline) * 1024 / activities
        lean = " lean" if "--lean-history" in extra else ""
        print(f"history {history:>4}{lean}: baseline {baseline / 1024:7.1f} MB, after {settled / 1024:7.1f} MB, "
              f"{per:8.0f} bytes per activity ({activities} activities, {pushes} pushes, load {seconds:.0f} s, "
              f"load's own peak {load_peak / 1024:.0f} MB)", flush=True)
        return per
    finally:
        mock.terminate()
        mock.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--activities", type=int, default=10000)
    parser.add_argument("--scenario", default=os.path.join(ROOT, "Scenarios/football.yaml"))
    parser.add_argument("--history", type=int, nargs="+", default=[32, 8, 1])
    parser.add_argument("--keep-payloads", action="store_true", help="pass --keep-payloads to the mock")
    parser.add_argument("--lean-history", action="store_true",
                        help="pass --lean-history to the mock (no rendered bodies kept, as liveline load's embedded mock)")
    arguments = parser.parse_args()
    if not os.access(LIVELINE, os.X_OK):
        sys.exit(f"{LIVELINE} is missing: swift build -c release --product liveline (or set LIVELINE)")
    extra = (["--keep-payloads"] if arguments.keep_payloads else []) + (["--lean-history"] if arguments.lean_history else [])
    for history in arguments.history:
        measure(arguments.activities, history, extra, arguments.scenario)


if __name__ == "__main__":
    main()
