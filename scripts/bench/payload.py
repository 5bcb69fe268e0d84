#!/usr/bin/env python3
"""Writes the benchmarks' Live Activity update (276 bytes): timestamp now, stale in an hour, a
Date in reference-date seconds. One definition for scripts/bench/mock-apns.sh,
scripts/bench/apns-client.sh and scripts/bench/callgrind-mock-apns.sh.

    scripts/bench/payload.py OUT.json
"""
import json
import sys
import time

now = int(time.time())
payload = {"aps": {
    "timestamp": now, "event": "update", "stale-date": now + 3600, "relevance-score": 60,
    "content-state": {"homeScore": 2, "awayScore": 1, "phase": "second-half", "minute": 67,
                      "lastEvent": "GOAL! Whitfield 67'", "periodStart": now - 978307200 - 1320,
                      "scorers": ["Whitfield", "Doyle", "Whitfield"]}}}
open(sys.argv[1], "w").write(json.dumps(payload, separators=(",", ":")))
