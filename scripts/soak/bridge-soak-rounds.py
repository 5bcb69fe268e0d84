#!/usr/bin/env python3
"""Where the probe's webhooks were slower, for scripts/soak/bridge-soak.sh: reads the probe's
OUT.json.raw (every webhook's send time and latency, and the prune rounds) in the soak's
directory and prints

- the p99 inside and outside the rounds for each SEGMENT seconds (default 600) of the run;
- p50, p99 and the share over 1.5 ms by how far into its round a webhook came, and how long
  after one;
- a null reference: the rounds' windows moved 20–50 s later, into the time between rounds, and
  the webhooks that fall in them against the rest outside the rounds. A ratio this far from 1
  is what any window of the run differs by, without pruning;
- with threads.json (scripts/soak/bridge-soak-threads.py), each busy thread's CPU and the
  log's frames not yet checkpointed, inside the rounds and outside.

    scripts/soak/bridge-soak-rounds.py SOAK-DIR [SEGMENT]
"""
import bisect, json, os, sys


def p(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def over(xs, ms):
    return 100 * sum(x > ms for x in xs) / len(xs) if xs else float("nan")


class Windows:
    def __init__(self, windows):
        self.windows = windows
        self.starts = [a for a, _ in windows]

    def index(self, t):
        """The round `t` falls in, or None."""
        i = bisect.bisect_right(self.starts, t) - 1
        return i if i >= 0 and t <= self.windows[i][1] else None

    def last_before(self, t):
        i = bisect.bisect_right(self.starts, t) - 1
        return self.windows[i] if i >= 0 else None


def main():
    soak = sys.argv[1]
    segment = float(sys.argv[2]) if len(sys.argv) > 2 else 600
    raw = json.load(open(os.path.join(soak, "probe.json.raw")))
    rounds = Windows(raw["windows"])
    sent = raw["sent"]
    if not sent or not rounds.windows:
        sys.exit("no probe webhooks or no prune rounds in " + soak)
    lengths = [b - a for a, b in rounds.windows]
    gaps = [rounds.windows[i + 1][0] - rounds.windows[i][1] for i in range(len(rounds.windows) - 1)]
    print(f"{len(lengths)} prune rounds, {sum(lengths) / len(lengths):.1f} s long on average"
          + (f", {sum(gaps) / len(gaps):.1f} s apart" if gaps else ""))

    inside = [(t, ms) for t, ms in sent if rounds.index(t) is not None]
    outside = [(t, ms) for t, ms in sent if rounds.index(t) is None]
    start = sent[0][0]
    print(f"\np99 inside / outside the rounds, by {segment:.0f} s of the run:")
    for k in range(int((sent[-1][0] - start) // segment) + 1):
        lo, hi = start + k * segment, start + (k + 1) * segment
        i = [ms for t, ms in inside if lo <= t < hi]
        o = [ms for t, ms in outside if lo <= t < hi]
        if i and o:
            print(f"  {k * segment:6.0f}–{(k + 1) * segment:<6.0f} s  {p(i, .99):5.2f} / {p(o, .99):5.2f} ms"
                  f"  {p(i, .99) / p(o, .99):.2f}×   (n {len(i)} / {len(o)})")
    i, o = [ms for _, ms in inside], [ms for _, ms in outside]
    print(f"  whole run        {p(i, .99):5.2f} / {p(o, .99):5.2f} ms  {p(i, .99) / p(o, .99):.2f}×")

    print("\nby place in the round (s):")
    places = {}
    for t, ms in sent:
        w = rounds.last_before(t)
        if w is None:
            continue
        key = ("in", int((t - w[0]) // 5) * 5) if t <= w[1] else ("after", int((t - w[1]) // 10) * 10)
        places.setdefault(key, []).append(ms)
    for key in sorted(places):
        xs = places[key]
        print(f"  {key[0]:>5} {key[1]:3d}+  p50 {p(xs, .5):.2f}  p99 {p(xs, .99):5.2f} ms  over 1.5 ms {over(xs, 1.5):4.1f}%  (n {len(xs)})")

    print("\nnull reference (windows moved into the time between rounds, against the rest outside):")
    for shift in (20, 30, 40, 50):
        moved = Windows([(a + shift, b + shift) for a, b in rounds.windows])
        m = [ms for t, ms in outside if moved.index(t) is not None]
        r = [ms for t, ms in outside if moved.index(t) is None]
        if m and r:
            print(f"  +{shift} s  {p(m, .99):5.2f} / {p(r, .99):5.2f} ms  {p(m, .99) / p(r, .99):.2f}×")

    path = os.path.join(soak, "threads.json")
    if os.path.exists(path):
        threads(json.load(open(path)), rounds)


def threads(data, rounds):
    samples, hz = data["samples"], data["ticks_per_second"]
    cpu = {"inside": {}, "outside": {}}
    seconds = {"inside": 0.0, "outside": 0.0}
    frames = {"inside": [], "outside": []}
    for a, b in zip(samples, samples[1:]):
        side = "inside" if rounds.index(a["t"]) is not None else "outside"
        seconds[side] += b["t"] - a["t"]
        for thread, ticks in b["threads"].items():
            cpu[side][thread] = cpu[side].get(thread, 0) + ticks - a["threads"].get(thread, ticks)
        if a["log"]:
            frames[side].append(a["log"][0] - a["log"][1])
    if not seconds["inside"] or not seconds["outside"]:
        return
    print("\nbridge threads, % of a core inside / outside the rounds:")
    share = {side: {t: 100 * n / hz / seconds[side] for t, n in cpu[side].items()} for side in cpu}
    busiest = sorted(share["outside"], key=lambda t: -(share["outside"][t] + share["inside"].get(t, 0)))
    for thread in busiest[:6]:
        print(f"  {thread:32} {share['inside'].get(thread, 0):5.1f} / {share['outside'][thread]:5.1f}")
    print(f"  {'all':32} {sum(share['inside'].values()):5.1f} / {sum(share['outside'].values()):5.1f}")
    if frames["inside"] and frames["outside"]:
        print(f"log frames not yet checkpointed: mean {sum(frames['inside']) / len(frames['inside']):.0f} inside,"
              f" {sum(frames['outside']) / len(frames['outside']):.0f} outside;"
              f" max {max(frames['inside'])} / {max(frames['outside'])}")


if __name__ == "__main__":
    main()
