#!/usr/bin/env python3
"""Where two processes' resident memory differs, by mapping: two copies of /proc/PID/smaps (one
build's process and another's, at the same point of the same workload), summed per file and
permission (`liveline r-xp` is the binary's text, `[anon]` the heap's arenas and the threads'
stacks), with the anonymous part of each. Text pages are file-backed: a larger binary touches
more of them without allocating anything.

    cp /proc/$PID/smaps before.smaps    # for each build, at the same point
    scripts/bench/smaps-diff.py before.smaps after.smaps
    scripts/bench/smaps-diff.py --all before.smaps after.smaps   # the mappings that did not move too
"""
import collections
import re
import sys


def read(path):
    mappings = collections.OrderedDict()
    current = None
    for line in open(path):
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            parts = line.split()
            name = parts[5] if len(parts) > 5 else "[anon]"
            if name.startswith("/"):
                name = name.rsplit("/", 1)[-1]
            current = f"{name} {parts[1]}"
            mappings.setdefault(current, collections.Counter())
        elif current and line.split(":", 1)[0] in ("Rss", "Anonymous"):
            key, value = line.split(":", 1)
            mappings[current][key] += int(value.split()[0])
    return mappings


def main():
    arguments = [a for a in sys.argv[1:] if a != "--all"]
    if len(arguments) != 2:
        sys.exit(__doc__)
    a, b = read(arguments[0]), read(arguments[1])
    print(f"{'mapping':44} {'RSS A':>8} {'RSS B':>8} {'B - A':>7} {'anon A':>8} {'anon B':>8}  (KiB)")
    totals = collections.Counter()
    for name in dict.fromkeys(list(a) + list(b)):
        x, y = a.get(name, collections.Counter()), b.get(name, collections.Counter())
        for side, m in (("a", x), ("b", y)):
            totals[side + "rss"] += m["Rss"]
            totals[side + "anon"] += m["Anonymous"]
        if "--all" in sys.argv or x["Rss"] != y["Rss"]:
            print(
                f"{name[:44]:44} {x['Rss']:8} {y['Rss']:8} {y['Rss'] - x['Rss']:+7} {x['Anonymous']:8} {y['Anonymous']:8}"
            )
    print(
        f"{'total':44} {totals['arss']:8} {totals['brss']:8} {totals['brss'] - totals['arss']:+7} "
        f"{totals['aanon']:8} {totals['banon']:8}"
    )
    print(
        f"anonymous {totals['banon'] - totals['aanon']:+} KiB, file-backed "
        f"{(totals['brss'] - totals['banon']) - (totals['arss'] - totals['aanon']):+} KiB"
    )


main()
