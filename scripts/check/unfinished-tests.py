#!/usr/bin/env python3
"""Names the tests of a Swift Testing log that started and never ended: after a crash, the
tests that were running when the process died.

    scripts/check/unfinished-tests.py LOG
"""

import re
import sys

STARTED = re.compile(r'Test (?:"(?P<quoted>.+?)"|(?P<plain>\S+\(.*?\))) started\.')
ENDED = re.compile(r'Test (?:"(?P<quoted>.+?)"|(?P<plain>\S+\(.*?\)))(?: with \d+ test cases?)? (?:passed|failed|skipped)')
LIMIT = 30


def name(match):
    return match.group("quoted") or match.group("plain")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().split("\n\n")[1].strip())
    running = {}
    with open(sys.argv[1], errors="replace") as log:
        for number, line in enumerate(log, 1):
            started = STARTED.search(line)
            if started:
                running[name(started)] = number
                continue
            ended = ENDED.search(line)
            if ended and "recorded an issue" not in line:
                running.pop(name(ended), None)
    # Tests run in parallel, so many may be open; the latest to start come last, nearest the crash.
    ordered = sorted(running.items(), key=lambda item: item[1])
    if len(ordered) > LIMIT:
        print(f"  ({len(ordered)} tests had started and not ended; the {LIMIT} that started last:)")
    for test, number in ordered[-LIMIT:]:
        print(f"  {test} (started at log line {number})")
    if not running:
        print("  (none: every test that started also ended)")


if __name__ == "__main__":
    main()
