#!/usr/bin/env python3
"""The bridge's CPU by thread and its SQLite log while a soak runs, for scripts/soak/bridge-soak.sh.

Every 0.1 s for SECONDS (or until the bridge exits), reads each of PID's threads' CPU time (/proc/PID/task) and,
from the store's shared-memory file (STORE-shm), how many frames the write-ahead log holds and
how many of them the checkpoints have copied. Writes the samples to OUT.json, on the probe's
clock (time.monotonic()), so scripts/soak/bridge-soak-rounds.py can split them into prune
rounds and the time between.

    scripts/soak/bridge-soak-threads.py PID STORE SECONDS OUT.json
"""
import json, os, struct, sys, time


def threads(pid):
    """Each thread's user+system CPU in clock ticks, keyed by `tid:name`."""
    cpu = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu[f"{tid}:{name}"] = int(fields[11]) + int(fields[12])
    return cpu


def log_frames(shm):
    """(frames in the log, frames checkpointed) from SQLite's WAL index header, or None."""
    try:
        with open(shm, "rb") as f:
            header = f.read(100)
        # WalIndexHdr.mxFrame at byte 16; WalCkptInfo.nBackfill at byte 96 (native order).
        return struct.unpack_from("<I", header, 16)[0], struct.unpack_from("<I", header, 96)[0]
    except (OSError, struct.error):
        return None


def main():
    pid, store, seconds, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    samples = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            cpu = threads(pid)
        except OSError:
            break
        samples.append({"t": time.monotonic(), "threads": cpu, "log": log_frames(store + "-shm")})
        time.sleep(0.1)
    with open(out, "w") as f:
        json.dump({"ticks_per_second": os.sysconf("SC_CLK_TCK"), "samples": samples}, f)


if __name__ == "__main__":
    main()
